// Statistical checks of the traffic generator with a seeded random source (deterministic).
// Run: `node --test loadtests/test/` (make loadtest-check).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TrafficGenerator, zipfSampler, cardOf } from '../k6/traffic.js';

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const N = 40000;

function sample(options = {}, n = N, mixed = false) {
  const g = new TrafficGenerator(Object.assign({ rand: mulberry32(42), idPrefix: 'test' }, options));
  const out = [];
  for (let i = 0; i < n; i++) out.push(mixed ? g.nextMixed() : g.next());
  return out;
}

test('every body is a JSON transaction with the contract fields', () => {
  for (const t of sample({}, 2000)) {
    const o = JSON.parse(t.body);
    assert.equal(o.transaction_id, t.id);
    assert.match(o.transaction_id, /^txn-test-0-[0-9a-z]+$/);
    assert.equal(typeof o.amount, 'number');
    assert.equal(typeof o.card_present, 'boolean');
    assert.match(o.card_bin, /^\d{6,8}$/);
    assert.match(o.country_code, /^[A-Z]{2}$/);
    assert.match(o.currency, /^[A-Z]{3}$/);
    assert.match(o.merchant_category_code, /^\d{4}$/);
    assert.ok(!Number.isNaN(Date.parse(o.timestamp)));
    assert.equal(o.card_present, ['CHIP', 'CONTACTLESS', 'SWIPE'].includes(o.entry_mode));
    if (!o.card_present) {
      assert.ok(o.device_id && o.email && o.ip_address, 'card-not-present calls carry device, email and IP');
    }
    assert.equal(o.decision, undefined, 'AUTH calls carry no decision');
  }
});

test('amounts follow the 80 / 15 / 5 bands', () => {
  const bands = [0, 0, 0];
  for (const t of sample()) {
    const a = JSON.parse(t.body).amount;
    assert.ok(a >= 100 && a <= 500000, `amount ${a} out of range`);
    bands[a < 5000 ? 0 : a < 50000 ? 1 : 2]++;
  }
  const share = bands.map((b) => b / N);
  assert.ok(Math.abs(share[0] - 0.80) < 0.015, `100-5k share ${share[0]}`);
  assert.ok(Math.abs(share[1] - 0.15) < 0.015, `5k-50k share ${share[1]}`);
  assert.ok(Math.abs(share[2] - 0.05) < 0.01, `50k-500k share ${share[2]}`);
});

test('about 1% are retries that resend an earlier transaction verbatim', () => {
  const seen = new Map();
  let retries = 0;
  for (const t of sample()) {
    if (t.retry) {
      retries++;
      assert.equal(seen.get(t.id), t.body, 'a retry resends the same body');
    } else {
      assert.ok(!seen.has(t.id), `fresh transaction_id ${t.id} reused`);
      seen.set(t.id, t.body);
    }
  }
  assert.ok(Math.abs(retries / N - 0.01) < 0.003, `retry share ${retries / N}`);
});

test('cards are Zipf-like: a hot head repeats enough for velocity windows to fire', () => {
  const counts = new Map();
  for (const t of sample({ retryRate: 0 })) counts.set(t.card, (counts.get(t.card) || 0) + 1);
  const sorted = [...counts.values()].sort((a, b) => b - a);
  // The hottest card is seen hundreds of times in 40k calls; uniform over 100k would be ~1.
  assert.ok(sorted[0] > 200, `hottest card seen ${sorted[0]} times`);
  const top100 = sorted.slice(0, 100).reduce((a, b) => a + b, 0);
  assert.ok(top100 / N > 0.1, `top 100 cards carry ${top100 / N}`);
  // ... and a long tail: many distinct cards.
  assert.ok(counts.size > 10000, `${counts.size} distinct cards`);
});

test('zipf sampler stays inside [0, n) at both ends of the unit interval', () => {
  for (const s of [0.5, 0.9, 1.0, 1.2]) {
    const z = zipfSampler(100000, s);
    assert.equal(z(0), 0);
    assert.ok(z(0.999999999) <= 99999 && z(0.999999999) >= 0);
  }
});

test('a card keeps its attributes (product, home, device) across draws', () => {
  assert.deepEqual(cardOf(1234), cardOf(1234));
  assert.notEqual(cardOf(1234).hash, cardOf(1235).hash);
  const networks = new Set();
  for (let i = 0; i < 5000; i++) networks.add(cardOf(i).product.network);
  assert.deepEqual([...networks].sort(), ['AMEX', 'DISCOVER', 'MASTERCARD', 'UNIONPAY', 'VISA']);
});

test('mixed traffic sends MONITORING_SHARE of MONITORING calls with a caller decision', () => {
  const calls = sample({ monitoringShare: 0.2 }, 20000, true);
  const mon = calls.filter((t) => t.monitoring);
  assert.ok(Math.abs(mon.length / calls.length - 0.2) < 0.015, `monitoring share ${mon.length / calls.length}`);
  for (const t of mon.slice(0, 500)) {
    assert.match(JSON.parse(t.body).decision, /^(APPROVE|DECLINE|REVIEW)$/);
    assert.equal(t.retry, false);
  }
});
