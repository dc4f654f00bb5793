import { cleanup, configure } from "@testing-library/react";
import { afterEach } from "vitest";
import { installFetchDelegate, routeFetchTo } from "./fetch";

installFetchDelegate();

// A route's first render loads its lazy modules, which takes more than the default second on
// a busy machine: `findBy*` and `waitFor` wait up to five.
configure({ asyncUtilTimeout: 5000 });

afterEach(() => {
  cleanup();
  routeFetchTo(null);
});
