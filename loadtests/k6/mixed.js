// Mixed: AUTH and MONITORING on one open-loop arrival rate, MONITORING_SHARE (default 0.2) of the
// calls are MONITORING (with the caller's decision). Each endpoint is reported and held on its own.
//   RATE (default 2000), DURATION (default 30s), MONITORING_SHARE
import { baseOptions, evaluate, setup, summaryHandler, envNum, envDuration, vusFor, parts, useTarget } from './vigil.js';
import { thresholds } from './slo.js';

const env = typeof __ENV === 'undefined' ? {} : __ENV;
if (env.TARGET && env.TARGET.toLowerCase() !== 'mixed') {
  throw new Error('mixed.js sends AUTH and MONITORING: leave TARGET unset (or mixed)');
}
useTarget('mixed');
const rate = envNum('RATE', 2000);
const duration = envDuration('DURATION', '30s');
parts['name:auth'] = { label: 'AUTH', seconds: duration };
parts['name:monitoring'] = { label: 'MONITORING', seconds: duration };

export const options = baseOptions({
  scenarios: {
    mixed: Object.assign({ executor: 'constant-arrival-rate', rate, timeUnit: '1s', duration: `${duration}s` }, vusFor(rate)),
  },
  thresholds: thresholds({ selectors: ['name:auth', 'name:monitoring'], openLoop: true }),
});

export { setup };
export default function () { evaluate(); }
export const handleSummary = summaryHandler('mixed');
