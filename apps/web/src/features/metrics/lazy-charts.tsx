import { Skeleton } from "@mantine/core";
import {
  type ComponentProps,
  type ReactNode,
  startTransition,
  useCallback,
  useEffect,
  useRef,
  useState,
} from "react";

/**
 * The charts' module (recharts) is loaded when a metrics page first needs it; no other page
 * carries recharts. Each chart is drawn in a task of its own, one after another, each once the
 * one before has painted, at the width its box already has:
 *  - the page's first render (the cards) does not wait for, nor include, any chart;
 *  - recharts' first render of two charts was one task of 340 ms on this machine under load;
 *    one chart per task halves it, and the render itself is a transition React can yield in;
 *  - the box's width comes from a ResizeObserver (read after layout, never forcing one) and is
 *    given to the chart, so recharts' ResponsiveContainer neither renders an empty chart first
 *    nor measures the box itself (`getBoundingClientRect`) before drawing.
 */
type ChartsModule = typeof import("./charts");

let loaded: ChartsModule | undefined;
let loading: Promise<ChartsModule> | undefined;
const charts = (): Promise<ChartsModule> => {
  loading ??= import("./charts").then((m) => {
    loaded = m;
    return m;
  });
  return loading;
};

/**
 * Starts loading the charts' chunk, for a page to call as it mounts: the chunk then arrives
 * while the page's figures are being asked for, not after them (on PGlite the server answers
 * one query at a time, and a file asked for after the figures waits for their queries).
 */
export function preloadCharts(): void {
  void charts();
}

/** Resolves in a task of its own after the browser's next paint. */
export function afterPaint(): Promise<void> {
  return new Promise((resolve) => {
    if (typeof requestAnimationFrame !== "function") setTimeout(resolve, 0);
    else requestAnimationFrame(() => setTimeout(resolve, 0));
  });
}

/** The charts waiting to draw, in the order they asked: each turn starts once the previous drew. */
let queue: Promise<void> = Promise.resolve();

/**
 * True once it is this chart's turn to draw: after `ready`, after every chart that asked
 * before it has drawn (its wrapper committed) and the page painted. A chart unmounted while
 * waiting gives its turn up.
 */
function useDrawTurn(ready: boolean): { turn: boolean; drawn: () => void } {
  const [turn, setTurn] = useState(false);
  const release = useRef<() => void>(() => {});
  useEffect(() => {
    if (!ready) return;
    let live = true;
    const mine = new Promise<void>((resolve) => {
      release.current = resolve;
    });
    const previous = queue;
    queue = previous.then(() => mine);
    void previous.then(afterPaint).then(() => {
      if (live) startTransition(() => setTurn(true));
    });
    // Unmounted (or `ready` gone) before drawing: the next chart need not wait for this one.
    return () => {
      live = false;
      release.current();
    };
  }, [ready]);
  return { turn, drawn: () => release.current() };
}

/** The width of the element `ref` is set on, as a ResizeObserver reports it (undefined before). */
function useObservedWidth(): [(element: HTMLDivElement | null) => void, number | undefined] {
  const [width, setWidth] = useState<number | undefined>(undefined);
  const observer = useRef<ResizeObserver | undefined>(undefined);
  // One function for the component's life, so React does not detach and attach it (and the
  // observer report again) on every render.
  const ref = useCallback((element: HTMLDivElement | null) => {
    observer.current?.disconnect();
    observer.current = undefined;
    if (!element || typeof ResizeObserver === "undefined") return;
    observer.current = new ResizeObserver((entries) => {
      const w = Math.round(entries[0]?.contentRect.width ?? 0);
      if (w > 0) startTransition(() => setWidth(w));
    });
    observer.current.observe(element);
  }, []);
  return [ref, width];
}

/** Reports `drawn` after the commit that first showed the chart. */
function Drawn({ onDrawn, children }: { onDrawn: () => void; children: ReactNode }) {
  const once = useRef(onDrawn);
  useEffect(() => once.current(), []);
  return children;
}

function useChartsModule(): ChartsModule | undefined {
  const [module, setModule] = useState(loaded);
  useEffect(() => {
    if (module) return;
    let live = true;
    void charts().then((m) => {
      if (live) setModule(m);
    });
    return () => {
      live = false;
    };
  }, [module]);
  return module;
}

type MetricChartProps = Omit<ComponentProps<ChartsModule["MetricChart"]>, "width">;

export function MetricChart(props: MetricChartProps) {
  const h = props.h ?? 220;
  const module = useChartsModule();
  const [ref, width] = useObservedWidth();
  const { turn, drawn } = useDrawTurn(module !== undefined && width !== undefined);
  return (
    <div ref={ref} style={{ minHeight: h }}>
      {module && width !== undefined && turn ? (
        <Drawn onDrawn={drawn}>
          <module.MetricChart {...props} width={width} />
        </Drawn>
      ) : (
        <Skeleton h={h} radius="md" data-testid="chart-placeholder" />
      )}
    </div>
  );
}

export function BreakdownChart(props: ComponentProps<ChartsModule["BreakdownChart"]>) {
  const module = useChartsModule();
  const { turn, drawn } = useDrawTurn(module !== undefined);
  return module && turn ? (
    <Drawn onDrawn={drawn}>
      <module.BreakdownChart {...props} />
    </Drawn>
  ) : (
    <Skeleton h={160} radius="md" data-testid="chart-placeholder" />
  );
}
