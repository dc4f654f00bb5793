import { z } from "@hono/zod-openapi";

/** Every ISO 3166-1 alpha-2 code (what an address answered may carry). */
export const ALL_COUNTRIES = (
  "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW " +
  "BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI " +
  "FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN " +
  "IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME " +
  "MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF " +
  "PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV " +
  "SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE " +
  "YT ZA ZM ZW"
).split(" ") as [string, ...string[]];

/** Countries under trade embargo are refused in input, as Polar does. */
const EMBARGOED = new Set(["CU", "IR", "KP", "RU", "SY"]);
export const INPUT_COUNTRIES = ALL_COUNTRIES.filter((c) => !EMBARGOED.has(c)) as [string, ...string[]];

const optionalLine = z
  .string()
  .max(256)
  .nullish()
  .transform((v) => (v === undefined || v === null || v.trim() === "" ? null : v));

/**
 * A billing address as Polar takes it: `country` (ISO 3166-1 alpha-2, any case) is required,
 * the other lines optional (an empty string is no value).
 */
export const AddressInput = z
  .object({
    line1: optionalLine,
    line2: optionalLine,
    postal_code: optionalLine,
    city: optionalLine,
    state: optionalLine,
    country: z
      .string({ error: "Field required" })
      .transform((c) => c.toUpperCase())
      .pipe(z.enum(INPUT_COUNTRIES, { error: "A two-letter ISO 3166-1 country code, e.g. US" })),
  })
  .openapi("AddressInput");

export const Address = z
  .object({
    line1: z.string().nullable().optional(),
    line2: z.string().nullable().optional(),
    postal_code: z.string().nullable().optional(),
    city: z.string().nullable().optional(),
    state: z.string().nullable().optional(),
    country: z.string(),
  })
  .openapi("Address");

export type AddressInputValue = z.output<typeof AddressInput>;
