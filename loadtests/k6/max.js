// Closed loop: VUS virtual users send back to back (no think time). The throughput is the maximum the
// engine (and k6, on the same cores) can do; latency here is mostly queueing, so only correctness is
// held. Run with TARGET=noop for the HTTP ceiling of the same server.
//   VUS (default 32), DURATION (default 30s)
import { baseOptions, evaluate, setup, summaryHandler, envNum, envDuration, parts } from './vigil.js';
import { thresholds } from './slo.js';

const vus = envNum('VUS', 32);
const duration = envDuration('DURATION', '30s');
parts['scenario:max'] = { label: `${vus} VUs`, seconds: duration, held: false };

export const options = baseOptions({
  scenarios: { max: { executor: 'constant-vus', vus, duration: `${duration}s`, gracefulStop: '2s' } },
  thresholds: thresholds({ selectors: ['scenario:max'], latencyHeld: false }),
});

export { setup };
export default function () { evaluate(); }
export const handleSummary = summaryHandler('max');
