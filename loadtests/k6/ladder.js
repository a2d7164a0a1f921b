// Open-loop ladder: constant arrival rate in steps (default 1k → 2k → 5k → 10k → 15k /s), each step
// its own k6 scenario so each is reported on its own. Steps up to SLO_MAX_RATE are held to the SLO;
// higher ones are measured (where the knee is) but do not fail the run.
//   STEPS ("1000,2000,5000,10000,15000"), or RATE (peak) → steps at 10%, 20%, 50%, 100% of it
//   STEP_DURATION (default 20s; or DURATION split over the steps), STEP_GAP (default 2s idle between steps)
import { baseOptions, evaluate, setup, summaryHandler, envNum, envDuration, vusFor, parts } from './vigil.js';
import { thresholds, slo } from './slo.js';

const env = typeof __ENV === 'undefined' ? {} : __ENV;

function steps() {
  if (env.STEPS) {
    return env.STEPS.split(',').map((s) => {
      const n = Number(s.trim());
      if (!Number.isFinite(n) || n <= 0) throw new Error(`STEPS: "${s}" is not a positive rate`);
      return Math.round(n);
    });
  }
  if (env.RATE) {
    const peak = envNum('RATE', 1000);
    return [...new Set([0.1, 0.2, 0.5, 1].map((f) => Math.max(1, Math.round(peak * f))))];
  }
  return [1000, 2000, 5000, 10000, 15000];
}

const rates = steps();
const stepSeconds = env.STEP_DURATION || !env.DURATION ? envDuration('STEP_DURATION', '20s')
  : Math.max(1, Math.floor(envDuration('DURATION', '100s') / rates.length));
const gap = envDuration('STEP_GAP', '2s');

const scenarios = {};
const selectors = [];
rates.forEach((rate, i) => {
  const name = `step_${i + 1}_${rate}`;
  scenarios[name] = Object.assign({
    executor: 'constant-arrival-rate', rate, timeUnit: '1s', duration: `${stepSeconds}s`,
    startTime: `${i * (stepSeconds + gap)}s`,
    // Late iterations of a step must not spill into the next one.
    gracefulStop: `${Math.min(gap, 2)}s`,
  }, vusFor(rate));
  const sel = `scenario:${name}`;
  selectors.push(sel);
  parts[sel] = { label: `${rate}/s`, seconds: stepSeconds, target_rate: rate, held: rate <= slo.maxRate };
});

export const options = baseOptions({
  scenarios,
  thresholds: thresholds({ selectors, held: (s) => parts[s].held, openLoop: true, wholeRunHeld: false }),
});

export { setup };
export default function () { evaluate(); }
export const handleSummary = summaryHandler('ladder');
