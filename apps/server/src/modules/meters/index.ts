export { aggregateOver, aggregationSql, type CompiledAggregation, filterSql } from "./filter-sql.js";
export type { MeterHooks } from "./hooks.js";
export type { MeterRow } from "./repository.js";
export { findMeter, findMeters, listAllMeters, listMetersSigned, meterSignatureSql } from "./repository.js";
export { registerMeterRoutes } from "./routes.js";
export type { AggregationValue, FilterValue } from "./schemas.js";
export { meterToWire } from "./service.js";
