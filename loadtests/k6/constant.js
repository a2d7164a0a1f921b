// Open loop at one constant arrival rate: requests start on schedule whatever the latency, so the
// latency is the one a caller sees at that rate (no coordinated omission).
//   RATE (default 1000 /s), DURATION (default 30s)
import { baseOptions, evaluate, setup, summaryHandler, envNum, envDuration, vusFor, parts } from './vigil.js';
import { thresholds } from './slo.js';

const rate = envNum('RATE', 1000);
const duration = envDuration('DURATION', '30s');
parts['scenario:constant'] = { label: `${rate}/s`, seconds: duration, target_rate: rate };

export const options = baseOptions({
  scenarios: {
    constant: Object.assign({ executor: 'constant-arrival-rate', rate, timeUnit: '1s', duration: `${duration}s` }, vusFor(rate)),
  },
  thresholds: thresholds({ selectors: ['scenario:constant'], openLoop: true }),
});

export { setup };
export default function () { evaluate(); }
export const handleSummary = summaryHandler('constant');
