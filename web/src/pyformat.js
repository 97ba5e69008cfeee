// Numbers written exactly as Python writes them, so that a browser's log and a
// lab's log of the same events hold the same bytes.
//
// JavaScript's toFixed rounds an exact tie up; Python's format rounds it to
// even (0.0625 -> "0.062" with three decimals). Ties are found exactly from
// the double's binary expansion.

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

/** Mantissa and exponent of a finite, positive double: x = m * 2**e. */
function decompose(x) {
  f64[0] = x;
  const bits = u64[0];
  const exp = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & ((1n << 52n) - 1n);
  if (exp === 0) return [frac, -1074];
  return [frac | (1n << 52n), exp - 1075];
}

/** `x` with `digits` decimals, as Python's f"{x:.{digits}f}". */
export function pyFixed(x, digits) {
  if (!Number.isFinite(x)) return x > 0 ? "inf" : x < 0 ? "-inf" : "nan";
  const neg = x < 0 || Object.is(x, -0);
  const a = Math.abs(x);
  let s = a.toFixed(digits);
  const [m, e] = decompose(a);
  if (a !== 0 && e < 0) {
    // a * 10**(digits+1) = m * 10**(digits+1) / 2**-e; a tie when that is a whole number ending in 5.
    const num = m * 10n ** BigInt(digits + 1);
    const den = 1n << BigInt(-e);
    if (num % den === 0n && (num / den) % 10n === 5n) {
      const below = (num / den) / 10n; // the candidate rounded down
      if (below % 2n === 0n) s = formatScaled(below, digits);
    }
  }
  return neg ? "-" + s : s;
}

function formatScaled(n, digits) {
  const t = n.toString().padStart(digits + 1, "0");
  return digits ? `${t.slice(0, -digits)}.${t.slice(-digits)}` : t;
}

/** Python's round(x, digits) for a float. */
export function pyRound(x, digits) {
  return Number(pyFixed(x, digits));
}

/** `x` as Python's f"{x:g}" (six significant digits, trailing zeros dropped). */
export function pyFormatG(x) {
  if (!Number.isFinite(x)) return x > 0 ? "inf" : x < 0 ? "-inf" : "nan";
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  const [mant, expText] = x.toExponential(5).split("e");
  const exp = Number(expText);
  if (exp >= -4 && exp < 6) {
    return stripZeros(pyFixed(x, Math.max(0, 5 - exp)));
  }
  const m = stripZeros(mant);
  return `${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
}

function stripZeros(s) {
  return s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s;
}

/** An exactly rounded sum (Python's math.fsum; Shewchuk's algorithm). */
export function fsum(values) {
  const partials = [];
  for (let x of values) {
    let i = 0;
    for (let y of partials) {
      if (Math.abs(x) < Math.abs(y)) [x, y] = [y, x];
      const hi = x + y;
      const lo = y - (hi - x);
      if (lo) partials[i++] = lo;
      x = hi;
    }
    partials.length = i;
    partials.push(x);
  }
  // Add the partials from the top, with Python's correction for half-way cases.
  let n = partials.length;
  let hi = 0;
  if (n > 0) {
    hi = partials[--n];
    let lo = 0;
    while (n > 0) {
      const x = hi;
      const y = partials[--n];
      hi = x + y;
      const yr = hi - x;
      lo = y - yr;
      if (lo) break;
    }
    if (n > 0 && ((lo < 0 && partials[n - 1] < 0) || (lo > 0 && partials[n - 1] > 0))) {
      const y = lo * 2;
      const x = hi + y;
      const yr = x - hi;
      if (y === yr) hi = x;
    }
  }
  return hi;
}
