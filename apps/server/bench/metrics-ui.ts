/**
 * The dashboard's home page at size (`BENCH_ONLY=metrics-ui`): the organization of
 * metrics-server.ts (100,000 orders, 10,000 subscriptions over the last 365 days) opened by its
 * owner in Chromium (playwright-core driving `CHROMIUM_PATH`, /usr/bin/chromium, as the e2e
 * tests do), in UTC. Measured in the page, from its navigation start:
 *  - the five metric cards showing their figures (checked against the API's totals), and the
 *    revenue and MRR charts drawn; median of `loads` loads of the page;
 *  - changing the period to "Last 12 months": from the option's click to the picker showing it
 *    (the page answering the input), and to the cards showing the year's figures;
 *  - long tasks (PerformanceObserver 'longtask': the main thread busy 50 ms or more, when
 *    the page cannot answer an input) during each load and during the change: their count, the
 *    longest, and the total blocking time (the sum of each one's time beyond 50 ms).
 * `BENCH_METRICS_UI_PROFILE=<dir>` writes the page's CPU profiles of the first load and of the
 * change there (`load.cpuprofile`, `period.cpuprofile`: Chrome DevTools opens them).
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { CDPSession } from "playwright-core";
import type { MetricsReady } from "./metrics.js";
import type { BenchServer } from "./seeded-server.js";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export interface LongTasks {
  count: number;
  maxMs: number;
  /** Total blocking time: the sum over long tasks of their time beyond 50 ms. */
  blockingMs: number;
}

export interface MetricsUiResult {
  loads: number;
  /** Medians over the loads, ms from navigation start. */
  cardsMs: number;
  chartsMs: number;
  loadLongTasks: LongTasks;
  /** The period change: click -> the picker shows "Last 12 months"; click -> the year's figures. */
  pickerMs: number;
  figuresMs: number;
  changeLongTasks: LongTasks;
  orders30d: number;
  orders12m: number;
  /** The bound an interactive page keeps: the picker answers, and no task runs, longer than it. */
  boundMs: number;
  interactive: boolean;
}

export const INTERACTIVE_BOUND_MS = 200;

interface PageWindow {
  __longTasks: { start: number; duration: number }[];
  __clickAt?: number;
}

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function longTasksOf(tasks: { start: number; duration: number }[], from: number, to: number): LongTasks {
  const within = tasks.filter((t) => t.start + t.duration >= from && t.start <= to);
  return {
    count: within.length,
    maxMs: Math.max(0, ...within.map((t) => t.duration)),
    blockingMs: within.reduce((n, t) => n + Math.max(0, t.duration - 50), 0),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

export async function benchMetricsUi(
  ready: MetricsReady,
  server: BenchServer,
): Promise<MetricsUiResult | string> {
  if (!existsSync(CHROMIUM_PATH))
    return `not measured: ${CHROMIUM_PATH} not found (apt-get install chromium)`;
  const { chromium } = await import("playwright-core");
  const base = `http://127.0.0.1:${ready.port}`;
  const loads = Number(process.env.BENCH_METRICS_UI_LOADS ?? 3);

  // The owner: signed up and verified through the development mailbox, then a member.
  const email = `owner-${ready.slug}@example.test`;
  const password = "bench password 123";
  const headers = { "content-type": "application/json", origin: base };
  const signUp = await fetch(`${base}/api/auth/sign-up/email`, {
    method: "POST",
    headers,
    body: JSON.stringify({ email, password, name: "Bench owner" }),
  });
  const user = ((await signUp.json()) as { user?: { id: string } }).user;
  if (!user) throw new Error(`sign-up answered ${signUp.status}`);
  const mailbox = (await (await fetch(`${base}/api/dev/mailbox?to=${email}`)).json()) as {
    items: Array<{ links: string[] }>;
  };
  const link = mailbox.items[0]?.links[0];
  if (!link) throw new Error("no verification mail");
  await fetch(link, { redirect: "manual" });
  server.child.send({ member: user.id });
  await server.next("memberAdded");

  // What the cards must show: the API's orders over the same ranges (UTC, as the page).
  const ordersOver = async (start: string, end: string, interval: string) => {
    const r = await fetch(
      `${base}/v1/metrics/?start_date=${start}&end_date=${end}&interval=${interval}&metrics=orders&timezone=UTC`,
      { headers: { authorization: `Bearer ${ready.token}` } },
    );
    const body = (await r.json()) as { totals?: { orders?: number } };
    if (r.status !== 200 || body.totals?.orders === undefined)
      throw new Error(`metrics answered ${r.status}`);
    return body.totals.orders;
  };
  const today = Math.floor(Date.now() / DAY) * DAY;
  const now = new Date(today);
  const yearStart = iso(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 11, 1));
  const orders30d = await ordersOver(iso(today - 29 * DAY), iso(today), "day");
  const orders12m = await ordersOver(yearStart, iso(today), "month");

  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--no-first-run",
    ],
  });
  try {
    const context = await browser.newContext({ viewport: { width: 1440, height: 1000 }, timezoneId: "UTC" });
    context.setDefaultTimeout(Number(process.env.BENCH_METRICS_UI_TIMEOUT_MS ?? 600_000));
    await context.addInitScript(() => {
      const w = window as unknown as PageWindow;
      w.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) w.__longTasks.push({ start: e.startTime, duration: e.duration });
      }).observe({ type: "longtask", buffered: true });
      // The capture phase sees the click before the page's own handlers.
      document.addEventListener(
        "click",
        () => {
          w.__clickAt = performance.now();
        },
        true,
      );
    });
    const page = await context.newPage();
    await page.goto(`${base}/sign-in`);
    await page.getByLabel(/^E-mail or username/).fill(email);
    await page.getByLabel(/^Password/).fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((u) => u.pathname === `/dashboard/${ready.slug}`);

    const digits = (n: number) => String(Math.round(n));
    /** In the page: ms since navigation start when the five cards show figures, Orders = `orders`. */
    const cardsShown = (orders: string) =>
      page
        .waitForFunction(
          (want) => {
            const values = [...document.querySelectorAll('[data-metric] [data-testid="metric-value"]')];
            const ordersCard = document.querySelector('[data-metric="orders"] [data-testid="metric-value"]');
            return values.length === 5 && ordersCard?.textContent?.replace(/\D/g, "") === want
              ? performance.now()
              : false;
          },
          orders,
          { polling: "raf" },
        )
        .then((h) => h.jsonValue() as Promise<number>);
    const chartsDrawn = () =>
      page
        .waitForFunction(
          () =>
            document.querySelector('figure[aria-label="Revenue chart"] .recharts-bar-rectangle') &&
            document.querySelector('figure[aria-label="MRR chart"] .recharts-line-curve')
              ? performance.now()
              : false,
          undefined,
          { polling: "raf" },
        )
        .then((h) => h.jsonValue() as Promise<number>);

    const profileDir = process.env.BENCH_METRICS_UI_PROFILE;
    const cdp: CDPSession | undefined = profileDir ? await context.newCDPSession(page) : undefined;
    const profile = {
      async start() {
        if (!cdp) return;
        await cdp.send("Profiler.enable");
        await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
        await cdp.send("Profiler.start");
      },
      async stop(name: string) {
        if (!cdp || !profileDir) return;
        const { profile } = await cdp.send("Profiler.stop");
        mkdirSync(profileDir, { recursive: true });
        writeFileSync(path.join(profileDir, `${name}.cpuprofile`), JSON.stringify(profile));
      },
    };

    const cards: number[] = [];
    const charts: number[] = [];
    const loadTasks: LongTasks[] = [];
    for (let i = 0; i < loads; i++) {
      if (i === 0) await profile.start();
      await page.goto(`${base}/dashboard/${ready.slug}`);
      const [c, ch] = await Promise.all([cardsShown(digits(orders30d)), chartsDrawn()]);
      if (i === 0) await profile.stop("load");
      cards.push(c);
      charts.push(ch);
      const tasks = await page.evaluate(() => (window as unknown as PageWindow).__longTasks);
      loadTasks.push(longTasksOf(tasks, 0, Math.max(c, ch)));
    }

    // The period: Last 30 days -> Last 12 months.
    await page.getByRole("combobox", { name: "Period" }).click();
    const option = page.getByRole("option", { name: "Last 12 months" });
    await option.waitFor();
    await profile.start();
    await option.click();
    const picked = await page
      .waitForFunction(
        () => {
          const label = [...document.querySelectorAll("label")].find((l) => l.textContent === "Period");
          const input = label && (document.getElementById(label.htmlFor) as HTMLInputElement | null);
          return input?.value === "Last 12 months" && location.search.includes("period=12m")
            ? performance.now()
            : false;
        },
        undefined,
        { polling: "raf" },
      )
      .then((h) => h.jsonValue() as Promise<number>);
    const shown = await cardsShown(digits(orders12m));
    await profile.stop("period");
    const { clickAt, tasks } = await page.evaluate(() => {
      const w = window as unknown as PageWindow;
      return { clickAt: w.__clickAt ?? Number.NaN, tasks: w.__longTasks };
    });
    const worst = (key: keyof LongTasks) => Math.max(...loadTasks.map((t) => t[key]));
    const loadLongTasks = { count: worst("count"), maxMs: worst("maxMs"), blockingMs: worst("blockingMs") };
    const changeLongTasks = longTasksOf(tasks, clickAt, shown);
    const pickerMs = picked - clickAt;
    return {
      loads,
      cardsMs: median(cards),
      chartsMs: median(charts),
      loadLongTasks,
      pickerMs,
      figuresMs: shown - clickAt,
      changeLongTasks,
      orders30d,
      orders12m,
      boundMs: INTERACTIVE_BOUND_MS,
      interactive:
        pickerMs <= INTERACTIVE_BOUND_MS &&
        loadLongTasks.maxMs <= INTERACTIVE_BOUND_MS &&
        changeLongTasks.maxMs <= INTERACTIVE_BOUND_MS,
    };
  } finally {
    await browser.close();
  }
}
