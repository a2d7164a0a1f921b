// Writes a pool of request bodies from the same traffic generator the k6 scenarios use (traffic.js),
// for the wrk ceiling phases of `make bench` (vigil.lua). One JSON body per line, with the
// transaction_id replaced by @ID@ so wrk can make every request's id unique cheaply.
//
//   node loadtests/wrk/pool.js <count> <out-file> [auth|monitoring]
import { writeFileSync } from 'node:fs';
import { TrafficGenerator } from '../k6/traffic.js';

const [count, out, kind = 'auth'] = process.argv.slice(2);
const n = Number(count);
if (!Number.isInteger(n) || n <= 0 || !out || !['auth', 'monitoring'].includes(kind)) {
  console.error('usage: node loadtests/wrk/pool.js <count> <out-file> [auth|monitoring]');
  process.exit(2);
}
// Retries are wrk's job (vigil.lua resends a recent request verbatim): the pool holds fresh
// transactions only.
const traffic = new TrafficGenerator({ retryRate: 0 });
const lines = new Array(n);
for (let i = 0; i < n; i++) {
  const t = traffic.build(kind === 'monitoring');
  lines[i] = t.body.replace('"transaction_id":"' + t.id + '"', '"transaction_id":"@ID@"');
  if (lines[i] === t.body) throw new Error('transaction_id not found in a generated body');
}
writeFileSync(out, lines.join('\n') + '\n');
console.log(`wrote ${n} ${kind} bodies to ${out}`);
