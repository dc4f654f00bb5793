// Runs on PGlite only: which addresses a webhook may not be sent to, a pure rule; no database at all.
import { describe, expect, it } from "vitest";
import { isPrivateAddress } from "../src/kit/public-address.js";

describe("private addresses (WEBHOOK_PRIVATE_TARGETS=refuse)", () => {
  it("refuses loopback, private, link-local, reserved and every IPv6 form that carries one", () => {
    for (const address of [
      "127.0.0.1",
      "127.255.0.9",
      "10.0.0.1",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "198.18.0.1",
      "224.0.0.1",
      "255.255.255.255",
      "::",
      "::1",
      "[::1]",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::7f00:1",
      "64:ff9b::a00:1",
      "fc00::1",
      "fd12:3456::1",
      "fe80::1",
      "ff02::1",
      "not an address",
    ])
      expect(isPrivateAddress(address), address).toBe(true);
  });

  it("takes public addresses", () => {
    for (const address of [
      "8.8.8.8",
      "203.0.113.7",
      "172.32.0.1",
      "100.128.0.1",
      "2606:4700::1111",
      "::ffff:808:808",
    ])
      expect(isPrivateAddress(address), address).toBe(false);
  });
});
