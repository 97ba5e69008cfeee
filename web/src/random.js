// Python's random.Random, as far as block orders need it: the Mersenne Twister
// seeded from an integer as CPython seeds it (init_by_array over the 32-bit
// words of |seed|), getrandbits, _randbelow and shuffle. One seed gives one
// order in the lab (tol_tasks.session_data.trial.block_order) and online.

const N = 624;
const M = 397;

export class PythonRandom {
  /** `seed`: an integer (number, BigInt or decimal text). */
  constructor(seed) {
    this.mt = new Uint32Array(N);
    this.index = N;
    let n = BigInt(seed);
    if (n < 0n) n = -n;
    const key = [];
    while (n > 0n) {
      key.push(Number(n & 0xffffffffn));
      n >>= 32n;
    }
    if (!key.length) key.push(0);
    this._initByArray(key);
  }

  _initGenrand(s) {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
  }

  _initByArray(key) {
    const mt = this.mt;
    this._initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1664525)) + key[j] + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
    }
    mt[0] = 0x80000000;
    this.index = N;
  }

  /** The next 32-bit output (genrand_uint32). */
  uint32() {
    const mt = this.mt;
    if (this.index >= N) {
      for (let kk = 0; kk < N; kk++) {
        const y = (mt[kk] & 0x80000000) | (mt[(kk + 1) % N] & 0x7fffffff);
        mt[kk] = mt[(kk + M) % N] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.index = 0;
    }
    let y = mt[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** getrandbits(k) for 0 <= k <= 32. */
  getrandbits(k) {
    if (k === 0) return 0;
    return this.uint32() >>> (32 - k);
  }

  /** A random integer in [0, n) (Python's _randbelow_with_getrandbits). */
  randbelow(n) {
    if (!n) return 0;
    const k = 32 - Math.clz32(n);
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }

  /** Shuffle `x` in place, as random.Random.shuffle does. */
  shuffle(x) {
    for (let i = x.length - 1; i > 0; i--) {
      const j = this.randbelow(i + 1);
      [x[i], x[j]] = [x[j], x[i]];
    }
    return x;
  }
}

/** A seed as tol-run draws one: an integer in [0, 2**31) from the system's generator. */
export function drawSeed() {
  const buf = new Uint32Array(1);
  globalThis.crypto.getRandomValues(buf);
  return buf[0] >>> 1;
}

/** Problem indices in running order and the seed used (tol_tasks.session_data.trial.block_order). */
export function blockOrder(n, order, seed) {
  const idx = Array.from({ length: n }, (_, i) => i);
  if (order !== "shuffled") return [idx, seed];
  const used = seed === null || seed === undefined ? drawSeed() : seed;
  new PythonRandom(used).shuffle(idx);
  return [idx, used];
}
