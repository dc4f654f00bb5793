export { AnalyticsPage } from "../../features/metrics/analytics-page";
