// The prom-client classes the gateway uses, loaded from their own files: the package's index
// also loads Summary, Pushgateway, the cluster aggregator and the default process metrics, and
// through those @opentelemetry/api (75 modules fewer, ~5 MB of RSS in every process); the gateway
// uses none of them (docs/performance.md, "memory, this session"). prom-client has no
// "exports" map: lib/<class>.js is its published layout (each file exports its class).
import type * as Prom from "prom-client";

export const Registry: typeof Prom.Registry = require("prom-client/lib/registry");
export const Counter: typeof Prom.Counter = require("prom-client/lib/counter");
export const Gauge: typeof Prom.Gauge = require("prom-client/lib/gauge");
export const Histogram: typeof Prom.Histogram = require("prom-client/lib/histogram");
export type Registry = Prom.Registry;
export type Counter<T extends string = string> = Prom.Counter<T>;
export type Gauge<T extends string = string> = Prom.Gauge<T>;
export type Histogram<T extends string = string> = Prom.Histogram<T>;
