// The wrk ceiling phases replay bodies written by loadtests/wrk/pool.js: each line must be one JSON
// transaction with an @ID@ placeholder in transaction_id (vigil.lua makes it unique per request).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const pool = join(dirname(fileURLToPath(import.meta.url)), '..', 'wrk', 'pool.js');

test('pool.js writes one transaction per line with the id placeholder', () => {
  const out = join(mkdtempSync(join(tmpdir(), 'vigil-pool-')), 'pool.txt');
  execFileSync(process.execPath, [pool, '500', out, 'auth']);
  const lines = readFileSync(out, 'utf8').trimEnd().split('\n');
  assert.equal(lines.length, 500);
  const cards = new Set();
  for (const line of lines) {
    assert.equal(line.split('@ID@').length, 2, 'exactly one placeholder');
    const txn = JSON.parse(line.replace('@ID@', 'txn-1'));
    assert.equal(txn.transaction_id, 'txn-1');
    assert.equal(typeof txn.amount, 'number');
    assert.equal(txn.decision, undefined, 'AUTH bodies carry no caller decision');
    cards.add(txn.card_hash);
  }
  // Zipf-like cards: the head repeats (velocity fires), the tail is wide.
  assert.ok(cards.size < 500 && cards.size > 100, `distinct cards ${cards.size}`);
});

test('pool.js refuses bad arguments', () => {
  assert.throws(() => execFileSync(process.execPath, [pool, 'x', '/tmp/never'], { stdio: 'pipe' }));
});
