/** The wire schemas live in `@kassa/contracts/v1` (meters.ts); this module reads them from there. */
export {
  Aggregation,
  type AggregationValue,
  CONJUNCTIONS,
  FILTER_OPERATORS,
  Filter,
  FilterClause,
  type FilterClauseValue,
  type FilterValue,
  METER_UNITS,
  Meter,
  MeterCreate,
  type MeterCreateInput,
  MeterUpdate,
  type MeterUpdateInput,
  type MeterWire,
} from "@kassa/contracts/v1";
