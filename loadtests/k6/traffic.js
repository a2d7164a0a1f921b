// Realistic card traffic for the Vigil engine (engine contract §2), shared by every scenario.
//
// Cost model: k6 runs on the same two cores as the engine, so the generator is part of the load.
// Everything that can be is precomputed once per VU at init (small weighted tables, alias-free
// cumulative arrays of a few entries); per request we draw ~12 random numbers and concatenate one
// JSON string. No per-card tables: a card's stable attributes (BIN, network, country, device, email,
// IP) are derived arithmetically from its index, so 100,000 cards cost no memory.
//
// Mixes (configurable through env, see README in docs/loadtests.md):
//   cards      Zipf-like over CARDS (default 100,000) with exponent ZIPF_S (default 0.9): a hot head of
//              cards makes the velocity rules (card count/sum/distinct windows) really fire.
//   amounts    80% 100–5,000, 15% 5,000–50,000, 5% 50,000–500,000 (log-uniform inside each band).
//   retries    RETRY_RATE (default 0.01) of requests resend a previous transaction verbatim, same
//              transaction_id (idempotency: must not count twice, must get the same answer).
//   network/BIN, MCC, country, entry mode, card_present, transaction type: weighted tables below.

const env = typeof __ENV === 'undefined' ? {} : __ENV;

function num(name, dflt) {
  const v = env[name];
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`${name}: expected a number, was "${v}"`);
  return n;
}

export const trafficConfig = Object.freeze({
  cards: Math.max(1, Math.floor(num('CARDS', 100000))),
  zipfS: num('ZIPF_S', 0.9),
  retryRate: num('RETRY_RATE', 0.01),
  monitoringShare: num('MONITORING_SHARE', 0.2),
  // Share of card-not-present traffic that carries a device/email/IP: real e-commerce calls do.
  idPrefix: env.TXN_PREFIX || '',
});

// ---- weighted tables ------------------------------------------------------------------------------

// weighted([[value, weight], ...]) → { values, cdf } for pick(); weights need not sum to 1.
function weighted(pairs) {
  let total = 0;
  for (const p of pairs) total += p[1];
  const values = [];
  const cdf = [];
  let acc = 0;
  for (const p of pairs) {
    acc += p[1] / total;
    values.push(p[0]);
    cdf.push(acc);
  }
  cdf[cdf.length - 1] = 1;
  return { values, cdf };
}

// Linear scan: tables have ≤ 16 entries, cheaper than a binary search at that size.
function pick(table, u) {
  const cdf = table.cdf;
  for (let i = 0; i < cdf.length; i++) {
    if (u < cdf[i]) return table.values[i];
  }
  return table.values[cdf.length - 1];
}

// Card products: network, BIN (6–8 digits, including the ranges the sample ruleset scopes on), logo.
export const PRODUCTS = weighted([
  [{ network: 'VISA', bin: '411111', logo: 'CLASSIC' }, 20],
  [{ network: 'VISA', bin: '424242', logo: 'GOLD' }, 12],
  [{ network: 'VISA', bin: '453201', logo: 'PLATINUM' }, 8],
  [{ network: 'VISA', bin: '476173', logo: 'INFINITE' }, 4],
  [{ network: 'VISA', bin: '428571', logo: 'CLASSIC' }, 3],
  [{ network: 'VISA', bin: '400555', logo: 'PREPAID' }, 4],
  [{ network: 'MASTERCARD', bin: '510510', logo: 'STANDARD' }, 14],
  [{ network: 'MASTERCARD', bin: '542418', logo: 'GOLD' }, 7],
  [{ network: 'MASTERCARD', bin: '555555', logo: 'WORLD_ELITE' }, 4],
  [{ network: 'MASTERCARD', bin: '537410', logo: 'STANDARD' }, 3],
  [{ network: 'MASTERCARD', bin: '22230012', logo: 'GIFT' }, 2],
  [{ network: 'AMEX', bin: '378282', logo: 'PLATINUM' }, 5],
  [{ network: 'AMEX', bin: '371449', logo: 'GOLD' }, 3],
  [{ network: 'DISCOVER', bin: '601111', logo: 'STANDARD' }, 2],
  [{ network: 'DISCOVER', bin: '60110090', logo: 'STANDARD' }, 1],
  [{ network: 'UNIONPAY', bin: '622126', logo: 'CLASSIC' }, 2],
]);

// Issuing country of the card (home) and its currency; most purchases happen at home.
export const COUNTRIES = weighted([
  [{ cc: 'US', cur: 'USD' }, 40],
  [{ cc: 'GB', cur: 'GBP' }, 12],
  [{ cc: 'DE', cur: 'EUR' }, 9],
  [{ cc: 'FR', cur: 'EUR' }, 7],
  [{ cc: 'IN', cur: 'INR' }, 10],
  [{ cc: 'BR', cur: 'BRL' }, 5],
  [{ cc: 'CA', cur: 'CAD' }, 5],
  [{ cc: 'MT', cur: 'EUR' }, 1],
  [{ cc: 'NG', cur: 'NGN' }, 2],
  [{ cc: 'SG', cur: 'SGD' }, 3],
  [{ cc: 'JP', cur: 'JPY' }, 4],
  [{ cc: 'AU', cur: 'AUD' }, 2],
]);
// Where a cross-border purchase happens (8% of traffic), including high-risk corridors.
export const FOREIGN = weighted([
  [{ cc: 'GB', cur: 'GBP' }, 20], [{ cc: 'US', cur: 'USD' }, 20], [{ cc: 'FR', cur: 'EUR' }, 10],
  [{ cc: 'NG', cur: 'NGN' }, 8], [{ cc: 'GH', cur: 'GHS' }, 4], [{ cc: 'CI', cur: 'XOF' }, 3],
  [{ cc: 'BR', cur: 'BRL' }, 8], [{ cc: 'RU', cur: 'RUB' }, 3], [{ cc: 'TH', cur: 'THB' }, 8],
  [{ cc: 'AE', cur: 'AED' }, 8], [{ cc: 'MX', cur: 'MXN' }, 8],
]);

// Merchant category codes: groceries, restaurants, fuel and retail dominate; risky ones are rare.
export const MCCS = weighted([
  [{ mcc: '5411', cat: 'GROCERY' }, 22],
  [{ mcc: '5812', cat: 'RESTAURANT' }, 14],
  [{ mcc: '5541', cat: 'FUEL' }, 9],
  [{ mcc: '5999', cat: 'RETAIL' }, 12],
  [{ mcc: '5311', cat: 'DEPARTMENT_STORE' }, 7],
  [{ mcc: '4111', cat: 'TRANSIT' }, 6],
  [{ mcc: '5732', cat: 'ELECTRONICS' }, 5],
  [{ mcc: '5734', cat: 'SOFTWARE' }, 3],
  [{ mcc: '4511', cat: 'AIRLINE' }, 3],
  [{ mcc: '7011', cat: 'HOTEL' }, 4],
  [{ mcc: '4900', cat: 'UTILITIES' }, 4],
  [{ mcc: '5966', cat: 'DIRECT_MARKETING' }, 2],
  [{ mcc: '7995', cat: 'GAMBLING' }, 2],
  [{ mcc: '6051', cat: 'QUASI_CASH' }, 2],
  [{ mcc: '4829', cat: 'MONEY_TRANSFER' }, 2],
  [{ mcc: '6211', cat: 'SECURITIES' }, 1],
]);

// Entry mode decides card_present: CHIP/CONTACTLESS/SWIPE are present, ECOM/MANUAL are not.
export const ENTRY_MODES = weighted([
  [{ mode: 'CHIP', present: true }, 30],
  [{ mode: 'CONTACTLESS', present: true }, 28],
  [{ mode: 'SWIPE', present: true }, 4],
  [{ mode: 'ECOM', present: false }, 34],
  [{ mode: 'MANUAL', present: false }, 4],
]);

export const TXN_TYPES = weighted([
  ['PURCHASE', 95], ['REFUND', 2.5], ['CASH_ADVANCE', 1.5], ['QUASI_CASH', 1],
]);

export const THREE_DS = weighted([['AUTHENTICATED', 80], ['ATTEMPTED', 12], ['FAILED', 5], ['NOT_ENROLLED', 3]]);

export const MONITORING_DECISIONS = weighted([['APPROVE', 92], ['DECLINE', 6], ['REVIEW', 2]]);

// Amount bands (major units) of the seeds' harness: 80% 100–5k, 15% 5k–50k, 5% 50k–500k.
export const AMOUNT_BANDS = weighted([[[100, 5000], 80], [[5000, 50000], 15], [[50000, 500000], 5]]);

// ---- cards ----------------------------------------------------------------------------------------

// Inverse CDF of the continuous power law p(x) ∝ x^-s on [1, N+1): an O(1) Zipf-like draw with no
// table (a 100,000-entry CDF per VU would cost ~1 MB × hundreds of VUs). Rank 0 is the hottest card.
export function zipfSampler(n, s) {
  if (Math.abs(s - 1) < 1e-9) {
    const logN1 = Math.log(n + 1);
    return (u) => Math.min(n - 1, Math.floor(Math.exp(u * logN1)) - 1);
  }
  const a = 1 - s;
  const top = Math.pow(n + 1, a) - 1;
  return (u) => Math.min(n - 1, Math.floor(Math.pow(u * top + 1, 1 / a)) - 1);
}

// A bijection of [0, n) that scatters hot ranks over the card space (odd multiplier coprime to n).
function scatter(rank, n) {
  return (rank * 7919 + 104729) % n;
}

// 32-bit mix (Murmur3 finalizer) so a card's derived attributes look independent of each other.
export function mix32(x) {
  let h = x | 0;
  h ^= h >>> 16; h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13; h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const U32 = 4294967296;

// Stable attributes of card #i: the same card always has the same product, home, device and email.
export function cardOf(i) {
  const h1 = mix32(i + 0x9e3779b9);
  const h2 = mix32(h1 ^ 0x5bd1e995);
  const h3 = mix32(h2 + i);
  const hex = ('00000000' + h1.toString(16)).slice(-8) + ('00000000' + h2.toString(16)).slice(-8);
  return {
    index: i,
    hash: 'card_' + hex + i.toString(36),
    product: pick(PRODUCTS, h1 / U32),
    home: pick(COUNTRIES, h2 / U32),
    // A few devices and emails are shared by several cards (fraud rings): distinct-card velocity.
    device: 'dev-' + ((h3 & 0xff) < 3 ? 'ring' + (h3 >>> 28) : i.toString(36)),
    email: ((h3 >>> 8) & 0xff) < 2 ? 'ring' + (h3 >>> 29) + '@mailinator.com' : 'u' + i.toString(36) + '@example.com',
    ip: '10.' + ((h2 >>> 16) & 0xff) + '.' + ((h2 >>> 8) & 0xff) + '.' + (h2 & 0xff),
  };
}

// ---- the generator -------------------------------------------------------------------------------

/**
 * A per-VU transaction source. `rand` is injectable for tests (default Math.random).
 * next() returns {id, body, retry, monitoring}: body is the JSON string to POST.
 */
export class TrafficGenerator {
  constructor(options = {}) {
    const o = Object.assign({}, trafficConfig, options);
    this.cards = o.cards;
    this.retryRate = o.retryRate;
    this.monitoringShare = o.monitoringShare;
    this.rand = o.rand || Math.random;
    this.zipf = zipfSampler(o.cards, o.zipfS);
    // Unique across VUs and runs: prefix (run), VU id, per-VU counter.
    const vu = typeof __VU === 'undefined' ? 0 : __VU;
    this.idPrefix = 'txn-' + (o.idPrefix || Date.now().toString(36)) + '-' + vu.toString(36) + '-';
    this.seq = 0;
    // Ring of recent AUTH transactions for retries (body + the decision the engine gave, if known).
    this.recent = new Array(64);
    this.recentCount = 0;
    this.lastCard = null;
  }

  nextCardIndex() {
    return scatter(this.zipf(this.rand()), this.cards);
  }

  amount() {
    const band = pick(AMOUNT_BANDS, this.rand());
    // Log-uniform inside the band, two decimals.
    const v = band[0] * Math.exp(this.rand() * Math.log(band[1] / band[0]));
    return Math.round(v * 100) / 100;
  }

  /** Builds one fresh transaction; `monitoring` adds the caller's decision. */
  build(monitoring) {
    const r = this.rand;
    const card = cardOf(this.nextCardIndex());
    const id = this.idPrefix + (this.seq++).toString(36);
    const entry = pick(ENTRY_MODES, r());
    const where = r() < 0.08 ? pick(FOREIGN, r()) : card.home;
    const m = pick(MCCS, r());
    const merchant = (r() * 5000) | 0;
    const p = card.product;
    let body = '{"transaction_id":"' + id +
      '","card_hash":"' + card.hash +
      '","amount":' + this.amount() +
      ',"currency":"' + where.cur +
      '","merchant_id":"M' + m.mcc + '-' + merchant +
      '","merchant_name":"' + m.cat + ' ' + merchant +
      '","merchant_category":"' + m.cat +
      '","merchant_category_code":"' + m.mcc +
      '","card_present":' + entry.present +
      ',"transaction_type":"' + pick(TXN_TYPES, r()) +
      '","entry_mode":"' + entry.mode +
      '","country_code":"' + where.cc +
      '","card_network":"' + p.network +
      '","card_bin":"' + p.bin +
      '","card_logo":"' + p.logo +
      '","timestamp":"' + new Date().toISOString() + '"';
    if (!entry.present) {
      // Card-not-present calls carry the digital identity the velocity rules key on.
      body += ',"device_id":"' + card.device + '","email":"' + card.email + '","ip_address":"' + card.ip +
        '","billing_address":{"country":"' + card.home.cc + '"}' +
        ',"custom_fields":{"three_ds_result":"' + pick(THREE_DS, r()) + '","risk_score":' + ((r() * 100) | 0) + '}';
    }
    if (monitoring) {
      body += ',"decision":"' + pick(MONITORING_DECISIONS, r()) + '"';
    }
    body += '}';
    return { id, body, retry: false, monitoring: !!monitoring, card: card.hash };
  }

  /** The next request: a retry of a recent AUTH transaction (RETRY_RATE), else a fresh one. */
  next(monitoring = false) {
    if (!monitoring && this.recentCount > 0 && this.rand() < this.retryRate) {
      const n = Math.min(this.recentCount, this.recent.length);
      const prior = this.recent[(this.rand() * n) | 0];
      return { id: prior.id, body: prior.body, retry: true, monitoring: false, card: prior.card, prior };
    }
    const t = this.build(monitoring);
    if (!monitoring) {
      const slot = { id: t.id, body: t.body, card: t.card, decision: null };
      this.recent[this.recentCount % this.recent.length] = slot;
      this.recentCount++;
      t.slot = slot;
    }
    return t;
  }

  /** Picks AUTH or MONITORING for the mixed scenario. */
  nextMixed() {
    return this.next(this.rand() < this.monitoringShare);
  }
}
