// Spike: a base rate, a sudden jump to the peak (in SPIKE_RAMP), a hold, and back. The engine must
// shed or queue without errors and recover: the whole run is held to the error SLO, latency to the SLO
// outside the spike window is in the "base" part.
//   BASE_RATE (default 10% of RATE), RATE (peak, default 10000), BASE_DURATION (20s),
//   SPIKE_DURATION (10s), SPIKE_RAMP (1s)
import { baseOptions, evaluate, setup, summaryHandler, envNum, envDuration, vusFor, parts } from './vigil.js';
import { thresholds } from './slo.js';

const peak = envNum('RATE', 10000);
const base = envNum('BASE_RATE', Math.max(1, Math.round(peak / 10)));
const baseS = envDuration('BASE_DURATION', '20s');
const spikeS = envDuration('SPIKE_DURATION', '10s');
const rampS = envDuration('SPIKE_RAMP', '1s');
const total = 2 * baseS + spikeS + 2 * rampS;
parts['scenario:spike'] = { label: `${base}→${peak}/s`, seconds: total, target_rate: peak, held: false };

export const options = baseOptions({
  scenarios: {
    spike: Object.assign({
      executor: 'ramping-arrival-rate', startRate: base, timeUnit: '1s',
      stages: [
        { target: base, duration: `${baseS}s` },
        { target: peak, duration: `${rampS}s` },
        { target: peak, duration: `${spikeS}s` },
        { target: base, duration: `${rampS}s` },
        { target: base, duration: `${baseS}s` },
      ],
    }, vusFor(peak)),
  },
  // Latency is reported (the spike's tail is the point of the run); errors and modes are held.
  thresholds: thresholds({ selectors: ['scenario:spike'], latencyHeld: false, openLoop: true }),
});

export { setup };
export default function () { evaluate(); }
export const handleSummary = summaryHandler('spike');
