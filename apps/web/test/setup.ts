import { cleanup } from "@testing-library/react";
import { afterEach } from "vitest";
import { installFetchDelegate, routeFetchTo } from "./fetch";

installFetchDelegate();

afterEach(() => {
  cleanup();
  routeFetchTo(null);
});
