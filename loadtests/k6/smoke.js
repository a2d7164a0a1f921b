// Smoke: a few sequential requests of every kind, every answer checked. Run it first against any
// new deployment: a wrong URL, a missing ruleset (FAIL_OPEN) or a broken velocity store fails it.
//   ITERATIONS (default 50)
import { baseOptions, evaluate, setup, summaryHandler, envNum } from './vigil.js';
import { thresholds } from './slo.js';

export const options = baseOptions({
  scenarios: {
    smoke: { executor: 'shared-iterations', vus: 1, iterations: envNum('ITERATIONS', 50), maxDuration: '1m' },
  },
  // Sequential single requests include JIT warm-up of a fresh engine: correctness only.
  thresholds: thresholds({ latencyHeld: false }),
});

export { setup };
export default function () { evaluate(); }
export const handleSummary = summaryHandler('smoke');
