// What every scenario shares: the target, the request, the answer checks, setup and the summary.
//
//   BASE_URL       engine data port (default http://127.0.0.1:8081)
//   TARGET         auth (default) | monitoring | mixed (AUTH + MONITORING_SHARE of MONITORING) |
//                  noop (the engine's own no-op endpoint: the HTTP ceiling of the same server)
//   SUMMARY_FILE   where handleSummary writes the JSON summary (besides the text on stdout)
//   RUN_LABEL      free text copied into the summary (bench phase name)
//   CLIENT_CERT, CLIENT_KEY, TLS_SKIP_VERIFY   client certificate for mutual TLS (baseOptions); the
//                  engine's CA: SSL_CERT_FILE (read by k6's Go TLS stack)
//   TOKENS_FILE    bearer tokens, one a line (engine with vigil.auth.data.jwt-enabled): each VU sends
//                  one of them on every request, as a few hundred callers reusing theirs would
import http from 'k6/http';
import { check, fail } from 'k6';
import { Rate, Counter } from 'k6/metrics';
import { TrafficGenerator, trafficConfig } from './traffic.js';
import { slo, SUMMARY_TREND_STATS } from './slo.js';

const env = typeof __ENV === 'undefined' ? {} : __ENV;

export const BASE_URL = (env.BASE_URL || 'http://127.0.0.1:8081').replace(/\/+$/, '');
let TARGET = (env.TARGET || 'auth').toLowerCase();
const PATHS = {
  auth: '/v1/evaluate/auth',
  monitoring: '/v1/evaluate/monitoring',
  noop: '/v1/evaluate/noop',
};
const TARGETS = ['auth', 'monitoring', 'mixed', 'noop'];
if (!TARGETS.includes(TARGET)) {
  throw new Error(`TARGET: expected ${TARGETS.join(', ')}, was "${TARGET}"`);
}

/** For scenarios that fix their target (mixed.js): call at init, before any iteration. */
export function useTarget(t) {
  if (!TARGETS.includes(t)) throw new Error(`unknown target "${t}"`);
  TARGET = t;
}

// Share of NORMAL answers, of DECLINEs (velocity and rules firing), and whether a retried
// transaction_id got the same decision as its first answer (idempotency, reported only).
export const normal = new Rate('vigil_normal');
export const declined = new Rate('vigil_declined');
export const retryConsistent = new Rate('vigil_retry_consistent');
export const badAnswers = new Counter('vigil_bad_answers');

// One generator per VU (module init runs once per VU).
const traffic = new TrafficGenerator();

// The bearer token of this VU (open() runs in the init context, once per VU).
const TOKENS = env.TOKENS_FILE
  ? open(env.TOKENS_FILE).split('\n').map((t) => t.trim()).filter((t) => t.length > 0)
  : [];
if (env.TOKENS_FILE && TOKENS.length === 0) throw new Error(`TOKENS_FILE ${env.TOKENS_FILE}: no tokens`);
const VU = typeof __VU === 'undefined' ? 0 : __VU;
export const TOKEN = TOKENS.length > 0 ? TOKENS[VU % TOKENS.length] : null;

// Reused request parameters: no per-request allocation of headers/tags.
function paramsFor(name) {
  const headers = { 'Content-Type': 'application/json' };
  if (TOKEN) headers.Authorization = `Bearer ${TOKEN}`;
  return { headers, tags: { name }, responseType: 'text' };
}
const PARAMS = { auth: paramsFor('auth'), monitoring: paramsFor('monitoring'), noop: paramsFor('noop') };
const URLS = { auth: BASE_URL + PATHS.auth, monitoring: BASE_URL + PATHS.monitoring, noop: BASE_URL + PATHS.noop };

// Decision in an answer, by substring: parsing every body as JSON would cost k6 (same cores as the
// engine) more than the engine spends deciding. The engine writes compact JSON, so this is exact.
export function decisionOf(body) {
  if (!body) return null;
  const i = body.indexOf('"decision":"');
  if (i < 0) return null;
  const end = body.indexOf('"', i + 12);
  return end < 0 ? null : body.substring(i + 12, end);
}

export function isNormal(body) {
  return body != null && body.indexOf('"engine_mode":"NORMAL"') >= 0;
}

/** One request of the configured TARGET, with its checks. */
export function evaluate() {
  let kind = TARGET;
  let txn;
  if (TARGET === 'mixed') {
    txn = traffic.nextMixed();
    kind = txn.monitoring ? 'monitoring' : 'auth';
  } else {
    txn = traffic.next(TARGET === 'monitoring');
  }
  const res = http.post(URLS[kind], txn.body, PARAMS[kind]);
  const body = res.body;
  if (kind === 'noop') {
    // The ceiling endpoint answers a fixed non-decision: only the transport is checked.
    const fine = res.status === 200 && body != null && body.indexOf('"noop":true') >= 0;
    check(res, { 'noop: 200 with the fixed answer': () => fine }, PARAMS.noop.tags);
    normal.add(fine, PARAMS.noop.tags);
    if (!fine) badAnswers.add(1, { name: kind, reason: `status_${res.status}` });
    return;
  }
  const decision = res.status === 200 ? decisionOf(body) : null;
  const decided = decision === 'APPROVE' || decision === 'DECLINE' || decision === 'REVIEW';
  const isNormalMode = decided && isNormal(body);
  const ok = decided && (isNormalMode || slo.expectMode === 'ANY');
  check(res, { 'answer: 200 with a decision (engine_mode NORMAL unless EXPECT_MODE=ANY)': () => ok }, PARAMS[kind].tags);
  if (!ok) {
    badAnswers.add(1, { name: kind, reason: res.status !== 200 ? `status_${res.status}` : decided ? 'mode' : 'no_decision' });
  }
  if (decided) {
    normal.add(isNormalMode, PARAMS[kind].tags);
    declined.add(decision === 'DECLINE', PARAMS[kind].tags);
    if (txn.retry) {
      if (txn.prior.decision) retryConsistent.add(txn.prior.decision === decision);
    } else if (txn.slot) {
      txn.slot.decision = decision;
    }
  }
}

// The health check of setup() is under /v1 too: an engine with a bearer JWT on its data port refuses it
// without a token (401), so it carries one like every request (setup runs as VU 0: the first token).
const SETUP_PARAMS = { headers: TOKEN ? { Authorization: `Bearer ${TOKEN}` } : {}, tags: { name: 'setup' } };

/** Fails fast when the target is not up (a wrong BASE_URL should not look like a 100% error run). */
export function setup() {
  const res = http.get(BASE_URL + '/v1/evaluate/health', SETUP_PARAMS);
  if (res.status !== 200) {
    fail(`engine not reachable at ${BASE_URL}/v1/evaluate/health: status ${res.status} ${res.error || ''}`);
  }
  return { started: new Date().toISOString() };
}

// ---- summary -------------------------------------------------------------------------------------

// Parts of a run reported separately (ladder steps, AUTH vs MONITORING), registered by the scenario:
// selector ("scenario:step_5000") → { label, seconds (for the rate), target_rate, held }.
export const parts = {};

function trend(m) {
  if (!m) return null;
  const v = m.values;
  const r = (x) => (x === undefined ? null : Math.round(x * 1000) / 1000);
  return { avg: r(v.avg), p50: r(v.med), p90: r(v['p(90)']), p95: r(v['p(95)']), p99: r(v['p(99)']), p999: r(v['p(99.9)']), max: r(v.max) };
}

function val(m, key) {
  return m && m.values[key] !== undefined ? m.values[key] : null;
}

function partOf(metrics, selector, seconds) {
  const sfx = selector ? `{${selector}}` : '';
  const reqs = val(metrics[`http_reqs${sfx}`], 'count') || 0;
  return {
    requests: reqs,
    rps: seconds > 0 ? Math.round((reqs / seconds) * 10) / 10 : null,
    latency_ms: trend(metrics[`http_req_duration${sfx}`]),
    failed_rate: val(metrics[`http_req_failed${sfx}`], 'rate'),
    normal_rate: val(metrics[`vigil_normal${sfx}`], 'rate'),
    declined_rate: val(metrics[`vigil_declined${sfx}`], 'rate'),
    dropped_iterations: val(metrics[`dropped_iterations${sfx}`], 'count') || 0,
  };
}

function failedThresholds(metrics) {
  const out = [];
  for (const name of Object.keys(metrics).sort()) {
    const th = metrics[name].thresholds;
    if (!th) continue;
    for (const expr of Object.keys(th)) {
      if (!th[expr].ok) out.push(`${name}: ${expr}`);
    }
  }
  return out;
}

export function buildSummary(data, scenario) {
  const m = data.metrics;
  const seconds = data.state.testRunDurationMs / 1000;
  const failed = failedThresholds(m);
  const summary = {
    scenario,
    target: TARGET,
    label: env.RUN_LABEL || null,
    base_url: BASE_URL,
    slo,
    traffic: trafficConfig,
    duration_s: Math.round(seconds * 10) / 10,
    overall: partOf(m, '', seconds),
    checks_rate: val(m.checks, 'rate'),
    retry_consistent_rate: m.vigil_retry_consistent && (m.vigil_retry_consistent.values.passes + m.vigil_retry_consistent.values.fails) > 0
      ? m.vigil_retry_consistent.values.rate : null,
    bad_answers: val(m.vigil_bad_answers, 'count') || 0,
    vus_max: val(m.vus_max, 'max'),
    parts: {},
    passed: failed.length === 0,
    failed_thresholds: failed,
  };
  for (const sel of Object.keys(parts)) {
    const p = parts[sel];
    summary.parts[p.label] = Object.assign({ selector: sel, target_rate: p.target_rate || null, held: p.held !== false },
      partOf(m, sel, p.seconds || seconds));
  }
  return summary;
}

function fmt(x, d = 2) {
  return x === null || x === undefined ? '-' : Number(x).toFixed(d);
}

export function textSummary(s) {
  const lines = [];
  lines.push(`vigil ${s.scenario} (${s.target}) ${s.label ? '[' + s.label + '] ' : ''}against ${s.base_url}: ${s.passed ? 'PASSED' : 'FAILED'}`);
  const row = (name, p) => lines.push(
    `  ${name.padEnd(16)} ${String(p.requests).padStart(9)} req ${fmt(p.rps, 1).padStart(9)}/s  ` +
    `p50 ${fmt(p.latency_ms && p.latency_ms.p50)}  p95 ${fmt(p.latency_ms && p.latency_ms.p95)}  ` +
    `p99 ${fmt(p.latency_ms && p.latency_ms.p99)}  max ${fmt(p.latency_ms && p.latency_ms.max)} ms  ` +
    `failed ${fmt((p.failed_rate || 0) * 100, 3)}%  normal ${fmt((p.normal_rate === null ? 0 : p.normal_rate) * 100, 2)}%  ` +
    `declined ${fmt((p.declined_rate || 0) * 100, 1)}%  dropped ${p.dropped_iterations}`);
  row('overall', s.overall);
  for (const name of Object.keys(s.parts)) row(name + (s.parts[name].held ? '' : '*'), s.parts[name]);
  if (Object.values(s.parts).some((p) => !p.held)) lines.push('  (* measured, not held to the SLO)');
  lines.push(`  SLO p50<=${s.slo.p50} p95<=${s.slo.p95} p99<=${s.slo.p99} ms, errors<=${s.slo.errorRate}, mode ${s.slo.expectMode}`);
  if (s.retry_consistent_rate !== null) lines.push(`  retries answered like the first time: ${fmt(s.retry_consistent_rate * 100, 2)}%`);
  for (const f of s.failed_thresholds) lines.push(`  threshold failed: ${f}`);
  return lines.join('\n') + '\n';
}

export function terminationMessage(s) {
  const failed = [];
  let size = 40;
  for (const f of s.failed_thresholds) {
    if (size + f.length + 4 > 3800) break;
    failed.push(f);
    size += f.length + 4;
  }
  return JSON.stringify({ passed: s.passed, failed, truncated: failed.length < s.failed_thresholds.length });
}

/** handleSummary for every scenario: text on stdout, JSON to SUMMARY_FILE when set. */
export function summaryHandler(scenario) {
  return (data) => {
    const s = buildSummary(data, scenario);
    const out = { stdout: textSummary(s) };
    if (env.SUMMARY_FILE) out[env.SUMMARY_FILE] = JSON.stringify(s, null, 2);
    // In-cluster runs: the failed thresholds go to the container's termination message, where the
    // operator reads them for the FraudLoadTest status (Kubernetes keeps at most 4 KiB of it).
    if (env.TERMINATION_LOG) out[env.TERMINATION_LOG] = terminationMessage(s);
    return out;
  };
}

/** Options every scenario shares. */
// Mutual TLS (engine with vigil.auth.data.client-certificate-required): BASE_URL https://..., the
// client certificate and key as PEM files. k6 has no option for a private CA, but as a Go program it
// trusts the PEM file named by SSL_CERT_FILE instead of the system's roots: the in-cluster runners get
// the engine's CA that way (FraudLoadTest spec.runner.clientCertificate). TLS_SKIP_VERIFY=true skips
// the server's check instead (the engine still checks the client's).
const TLS = env.CLIENT_CERT && env.CLIENT_KEY
  ? { tlsAuth: [{ cert: open(env.CLIENT_CERT), key: open(env.CLIENT_KEY) }], insecureSkipTLSVerify: env.TLS_SKIP_VERIFY === 'true' }
  : {};

export function baseOptions(extra) {
  return Object.assign({
    summaryTrendStats: SUMMARY_TREND_STATS,
    // Fewer tags per sample keeps k6's own CPU down (it shares the cores with the engine).
    systemTags: ['status', 'method', 'name', 'scenario', 'expected_response', 'check', 'error_code'],
    discardResponseBodies: false,
    noConnectionReuse: false,
    setupTimeout: '30s',
  }, TLS, extra);
}

export function vusFor(rate) {
  // Open loop: at ~1 ms per answer one VU serves ~500/s; keep slack for tail latency spikes.
  const pre = Math.max(10, Math.ceil(rate / 100));
  return { preAllocatedVUs: Math.min(pre, 400), maxVUs: Math.max(50, Math.min(Math.ceil(rate / 10), 2000)) };
}

export { slo };

/** "90s", "5m", "1h30m", "500ms", "1d" or a bare number of seconds → seconds. */
export function seconds(text) {
  const s = String(text).trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s);
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;
  let total = 0;
  let consumed = 0;
  let m;
  while ((m = re.exec(s)) !== null) {
    total += Number(m[1]) * { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 }[m[2]];
    consumed += m[0].length;
  }
  if (consumed !== s.length || consumed === 0) throw new Error(`not a duration: "${text}" (e.g. 30s, 5m, 1h30m)`);
  return total;
}

export function envNum(name, dflt) {
  const v = env[name];
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name}: expected a positive number, was "${v}"`);
  return n;
}

export function envDuration(name, dflt) {
  const v = env[name];
  return seconds(v === undefined || v === '' ? dflt : v);
}
