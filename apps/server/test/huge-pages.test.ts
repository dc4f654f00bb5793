// Runs on PGlite only: the allocator setting of the processes that hash passwords (kit/huge-pages.ts); no database in it.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import {
  envWithTunables,
  HUGE_PAGES_TUNABLE,
  withHugePages,
  withoutHugePages,
} from "../src/kit/huge-pages.js";

describe("GLIBC_TUNABLES for huge pages", () => {
  it("is added when unset, appended to an operator's own tunables, and left alone when already said either way; taken out for a comparison", () => {
    expect(HUGE_PAGES_TUNABLE).toBe("glibc.malloc.hugetlb=1");
    expect(withHugePages(undefined)).toBe("glibc.malloc.hugetlb=1");
    expect(withHugePages("")).toBe("glibc.malloc.hugetlb=1");
    expect(withHugePages("glibc.malloc.arena_max=2")).toBe("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
    expect(withHugePages("glibc.malloc.hugetlb=0")).toBe("glibc.malloc.hugetlb=0");
    expect(withHugePages("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=2")).toBe(
      "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=2",
    );
    expect(withoutHugePages(undefined)).toBeUndefined();
    expect(withoutHugePages("glibc.malloc.hugetlb=1")).toBeUndefined();
    expect(withoutHugePages("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1")).toBe(
      "glibc.malloc.arena_max=2",
    );
    expect(envWithTunables(undefined, { A: "1", GLIBC_TUNABLES: "x" })).toEqual({ A: "1" });
    expect(envWithTunables("y", { A: "1", GLIBC_TUNABLES: "x" })).toEqual({ A: "1", GLIBC_TUNABLES: "y" });
  });

  // Four hashes with Better Auth's parameters in a fresh process; the page faults they cost.
  const hashFaults = async (tunables: string | undefined) => {
    const env = envWithTunables(tunables);
    const script = `
      const { scryptSync } = require("node:crypto");
      const hash = () => scryptSync("a password", "a salt", 64, { N: 16384, r: 16, p: 1, maxmem: 64 * 1024 * 1024 });
      hash();
      const before = process.resourceUsage().minorPageFault;
      for (let i = 0; i < 4; i++) hash();
      console.log(process.resourceUsage().minorPageFault - before);`;
    const { stdout } = await promisify(execFile)(process.execPath, ["-e", script], { env });
    return Number(stdout.trim());
  };

  it.runIf(process.platform === "linux")(
    "spares a password hash its thousands of small page faults where the kernel gives huge pages on request",
    async () => {
      const plain = await hashFaults(undefined);
      const huge = await hashFaults(withHugePages(undefined));
      // Each hash maps 32 MiB: 8,192 small pages, or 16 huge ones.
      const mode = /\[(\w+)\]/.exec(readFileSync("/sys/kernel/mm/transparent_hugepage/enabled", "utf8"))?.[1];
      if (mode === "madvise") {
        expect(plain).toBeGreaterThan(4 * 8000);
        expect(huge).toBeLessThan(plain / 8);
      } else {
        // `always` gives every process huge pages and `never` none: the setting changes nothing.
        expect(Math.abs(huge - plain)).toBeLessThan(Math.max(plain, huge) / 2 + 500);
      }
    },
  );
});
