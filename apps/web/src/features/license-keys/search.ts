import { type ListSearch, validateListSearch } from "../../lib/list-search";

/**
 * The license keys page's address: the billing list's params (`page`, `status`) and the
 * benefit whose keys are listed (`?benefit_id=`), which the shared list validator does not
 * keep. Kept apart from the page so the router validates it without loading the page.
 */
export interface LicenseKeySearch extends ListSearch {
  benefit_id?: string;
}

export function validateLicenseKeySearch(s: Record<string, unknown>): LicenseKeySearch {
  const out: LicenseKeySearch = validateListSearch(s);
  if (typeof s.benefit_id === "string" && s.benefit_id !== "") out.benefit_id = s.benefit_id;
  return out;
}
