// The SLO as k6 thresholds. Every value comes from env so the same scripts serve `make bench`, a
// developer's ad-hoc run and the operator's FraudLoadTest (which fills these from the target
// FraudEngine's spec.slo and the FraudLoadTest's spec.thresholds).
//
//   P50_MS, P95_MS, P99_MS   latency objectives (ms) on http_req_duration. Defaults 2 / 5 / 10: the SLO
//                            (docs/slo.md, the FraudEngine's spec.slo defaults; SloObjectiveTest keeps
//                            them equal). A benchmark holding a stricter target sets them (P99_MS=5).
//   ERROR_RATE               highest share of failed requests, failed checks, non-NORMAL answers (0.001)
//   EXPECT_MODE              NORMAL (default): every answer must be engine_mode NORMAL;
//                            ANY: a fault-injection run, degraded answers are expected, only counted
//   DROPPED_MAX              open-loop: highest number of iterations k6 could not start on time (0)
//   SLO_MAX_RATE             ladder: steps above this rate are measured but not held to the SLO (10000)

const env = typeof __ENV === 'undefined' ? {} : __ENV;

function num(name, dflt) {
  const v = env[name];
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name}: expected a non-negative number, was "${v}"`);
  return n;
}

export const slo = Object.freeze({
  p50: num('P50_MS', 2),
  p95: num('P95_MS', 5),
  p99: num('P99_MS', 10),
  errorRate: num('ERROR_RATE', 0.001),
  expectMode: (env.EXPECT_MODE || 'NORMAL').toUpperCase(),
  droppedMax: num('DROPPED_MAX', 0),
  maxRate: num('SLO_MAX_RATE', 10000),
});

if (slo.expectMode !== 'NORMAL' && slo.expectMode !== 'ANY') {
  throw new Error(`EXPECT_MODE: expected NORMAL or ANY, was "${slo.expectMode}"`);
}

// Trend stats kept in the end-of-test data (handleSummary reads them).
export const SUMMARY_TREND_STATS = ['avg', 'min', 'med', 'p(90)', 'p(95)', 'p(99)', 'p(99.9)', 'max', 'count'];

// A threshold that never fails: makes k6 keep a sub-metric in the summary data for reporting only.
export const REPORT_ONLY = ['max>=0'];

function latency() {
  return [`p(50)<=${slo.p50}`, `p(95)<=${slo.p95}`, `p(99)<=${slo.p99}`];
}

/**
 * Thresholds for a run. `selectors` are the sub-metric tag filters to report separately (e.g.
 * "scenario:step_5000", "name:auth"); `held` says which of them are held to the latency SLO
 * (others are reported only). `latencyHeld=false` (closed-loop max) keeps only correctness.
 */
export function thresholds({ selectors = [], held = () => true, latencyHeld = true, openLoop = false,
  wholeRunHeld = true } = {}) {
  // wholeRunHeld=false (the ladder): only the selected parts are judged, the run as a whole is reported.
  const whole = latencyHeld && wholeRunHeld;
  const t = {
    http_req_failed: wholeRunHeld ? [`rate<=${slo.errorRate}`] : ['rate>=0'],
    checks: wholeRunHeld ? [`rate>=${1 - slo.errorRate}`] : ['rate>=0'],
    vigil_declined: ['rate>=0'],
    vigil_retry_consistent: ['rate>=0'],
    http_reqs: ['count>=0'],
    iterations: ['count>=0'],
  };
  t.http_req_duration = whole ? latency() : REPORT_ONLY;
  t.vigil_normal = wholeRunHeld && slo.expectMode === 'NORMAL' ? [`rate>=${1 - slo.errorRate}`] : ['rate>=0'];
  t.dropped_iterations = openLoop && wholeRunHeld ? [`count<=${slo.droppedMax}`] : ['count>=0'];
  for (const s of selectors) {
    const isHeld = latencyHeld && held(s);
    t[`http_req_duration{${s}}`] = isHeld ? latency() : REPORT_ONLY;
    t[`http_reqs{${s}}`] = ['count>=0'];
    t[`http_req_failed{${s}}`] = isHeld ? [`rate<=${slo.errorRate}`] : ['rate>=0'];
    t[`vigil_normal{${s}}`] = isHeld && slo.expectMode === 'NORMAL' ? [`rate>=${1 - slo.errorRate}`] : ['rate>=0'];
    t[`vigil_declined{${s}}`] = ['rate>=0'];
    if (openLoop) {
      t[`dropped_iterations{${s}}`] = isHeld ? [`count<=${slo.droppedMax}`] : ['count>=0'];
    }
  }
  return t;
}
