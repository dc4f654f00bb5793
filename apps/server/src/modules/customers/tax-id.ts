import { createRequire } from "node:module";
import type { stdnum as Stdnum } from "stdnum";

/**
 * Tax ID validation as Polar does it: the number must be valid for one of the formats of the
 * billing address's country (Stripe's tax ID types); the answer is `[compact number, format]`,
 * e.g. `["FR40303265045", "eu_vat"]`. A country without a supported format refuses every
 * tax ID. The checks are `stdnum`'s (format and check digits; no registry is consulted).
 */

type Check = [format: string, country: string, kind: string];

const EU_VAT: Record<string, string> = {
  AT: "uid",
  BE: "vat",
  BG: "vat",
  CY: "vat",
  CZ: "dic",
  DE: "vat",
  DK: "cvr",
  EE: "kmkr",
  ES: "nif",
  FI: "alv",
  FR: "tva",
  GR: "vat",
  HR: "oib",
  HU: "anum",
  IE: "vat",
  IT: "iva",
  LT: "pvm",
  LU: "tva",
  LV: "pvn",
  MT: "vat",
  NL: "btw",
  PL: "nip",
  PT: "nif",
  RO: "cif",
  SE: "vat",
  SI: "ddv",
  SK: "dph",
};

const OTHER: Record<string, Check[]> = {
  AD: [["ad_nrt", "AD", "nrt"]],
  AR: [["ar_cuit", "AR", "cuit"]],
  AU: [["au_abn", "AU", "abn"]],
  BR: [
    ["br_cnpj", "BR", "cnpj"],
    ["br_cpf", "BR", "cpf"],
  ],
  CA: [
    ["ca_gst_hst", "CA", "gst"],
    ["ca_qst", "CA", "qst"],
    ["ca_bn", "CA", "bn"],
  ],
  CH: [
    ["ch_vat", "CH", "vat"],
    ["ch_uid", "CH", "uid"],
  ],
  CL: [["cl_tin", "CL", "rut"]],
  CN: [["cn_tin", "CN", "uscc"]],
  CO: [["co_nit", "CO", "nit"]],
  CR: [["cr_tin", "CR", "cpj"]],
  DO: [["do_rcn", "DO", "rnc"]],
  EC: [["ec_ruc", "EC", "ruc"]],
  EG: [["eg_tin", "EG", "tn"]],
  GB: [["gb_vat", "GB", "vat"]],
  ID: [["id_npwp", "ID", "npwp"]],
  IL: [["il_vat", "IL", "hp"]],
  IN: [["in_gst", "IN", "gstin"]],
  IS: [["is_vat", "IS", "vsk"]],
  JP: [["jp_cn", "JP", "cn"]],
  KE: [["ke_pin", "KE", "pin"]],
  KR: [["kr_brn", "KR", "brn"]],
  MK: [["mk_vat", "MK", "edb"]],
  MX: [["mx_rfc", "MX", "rfc"]],
  NO: [["no_vat", "NO", "mva"]],
  NZ: [["nz_gst", "NZ", "ird"]],
  PE: [["pe_ruc", "PE", "ruc"]],
  RS: [["rs_pib", "RS", "pib"]],
  RU: [["ru_inn", "RU", "inn"]],
  SG: [["sg_uen", "SG", "uen"]],
  SV: [["sv_nit", "SV", "nit"]],
  TH: [["th_vat", "TH", "tin"]],
  TR: [["tr_tin", "TR", "vkn"]],
  TW: [["tw_vat", "TW", "ubn"]],
  US: [["us_ein", "US", "ein"]],
  UY: [["uy_ruc", "UY", "rut"]],
  VE: [["ve_rif", "VE", "rif"]],
  VN: [["vn_tin", "VN", "mst"]],
  ZA: [["za_vat", "ZA", "vat"]],
};

/**
 * `stdnum` holds the validators of every country and takes about a quarter of a second to
 * load: loaded on the first tax ID to check, not at every start of the server.
 */
let validators: typeof Stdnum | undefined;
function loadStdnum(): typeof Stdnum {
  validators ??= (createRequire(import.meta.url)("stdnum") as { stdnum: typeof Stdnum }).stdnum;
  return validators;
}

function run(country: string, kind: string, number: string): string | undefined {
  const validator = loadStdnum()[country]?.[kind];
  if (!validator) return undefined;
  const result = validator.validate(number);
  return result.isValid ? result.compact : undefined;
}

/** `[compact number, format]`, or undefined when the number is valid for no format of the country. */
export function validateTaxId(number: string, country: string): [string, string] | undefined {
  const cc = country.toUpperCase();
  const euKind = EU_VAT[cc];
  if (euKind) {
    const compact = run(cc, euKind, number);
    if (compact === undefined) return undefined;
    const prefix = cc === "GR" ? "EL" : cc;
    return [compact.startsWith(prefix) ? compact : `${prefix}${compact}`, "eu_vat"];
  }
  for (const [format, c, kind] of OTHER[cc] ?? []) {
    const compact = run(c, kind, number);
    if (compact !== undefined) return [compact, format];
  }
  return undefined;
}
