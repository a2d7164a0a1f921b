// Soak: a steady moderate rate for a long time (default 2000/s for 30m): leaks, GC drift, Redis
// memory growth and stream backlog show up here, not in short runs.
//   RATE (default 2000), DURATION (default 30m)
import { baseOptions, evaluate, setup, summaryHandler, envNum, envDuration, vusFor, parts } from './vigil.js';
import { thresholds } from './slo.js';

const rate = envNum('RATE', 2000);
const duration = envDuration('DURATION', '30m');
parts['scenario:soak'] = { label: `${rate}/s soak`, seconds: duration, target_rate: rate };

export const options = baseOptions({
  scenarios: {
    soak: Object.assign({ executor: 'constant-arrival-rate', rate, timeUnit: '1s', duration: `${duration}s` }, vusFor(rate)),
  },
  thresholds: thresholds({ selectors: ['scenario:soak'], openLoop: true }),
});

export { setup };
export default function () { evaluate(); }
export const handleSummary = summaryHandler('soak');
