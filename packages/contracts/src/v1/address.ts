import { z } from "zod";

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

const US_STATES = new Set(
  (
    "AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH " +
    "OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC"
  )
    .split(" ")
    .map((s) => `US-${s}`),
);
const CA_SUBDIVISIONS = new Set("AB BC MB NB NL NS NT NU ON PE QC SK YT".split(" ").map((s) => `CA-${s}`));

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
      .pipe(z.enum(INPUT_COUNTRIES, { error: "A two-letter ISO 3166-1 country code, e.g. US" }))
      .meta({ type: "string", enum: INPUT_COUNTRIES, description: "ISO 3166-1 alpha-2, e.g. US" }),
  })
  // As Polar: a US state or Canadian province is stored as its ISO 3166-2 code (`NY` -> `US-NY`).
  .transform((address, ctx) => {
    const { country, state } = address;
    if (!state || (country !== "US" && country !== "CA")) return address;
    const code = state.toUpperCase().startsWith(`${country}-`)
      ? state.toUpperCase()
      : `${country}-${state.toUpperCase()}`;
    if (!(country === "US" ? US_STATES : CA_SUBDIVISIONS).has(code)) {
      ctx.addIssue({
        code: "custom",
        path: ["state"],
        message: country === "US" ? "Invalid US state" : "Invalid CA subdivision",
      });
      return z.NEVER;
    }
    return { ...address, state: code };
  })
  .meta({ id: "AddressInput" });

export const Address = z
  .object({
    line1: z.string().nullable().optional(),
    line2: z.string().nullable().optional(),
    postal_code: z.string().nullable().optional(),
    city: z.string().nullable().optional(),
    state: z.string().nullable().optional(),
    country: z.string(),
  })
  .meta({ id: "Address" });

export type AddressInputValue = z.output<typeof AddressInput>;
