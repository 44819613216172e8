/**
 * Kubernetes quantities read the way the API server reads them (resource.ParseQuantity): exactly,
 * then rounded up to a whole nano unit. The CRD's CEL rules compare quantities with the API
 * server's own `quantity()`; the validator must reach the same answers, so it compares these.
 */
import { RESOURCE_QUANTITY_PATTERN } from './schema-helpers.ts';

const QUANTITY = new RegExp(RESOURCE_QUANTITY_PATTERN);

const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_SUFFIXES: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

const NANOS_PER_UNIT = 1_000_000_000n;

/** `numerator / 10^digits`, rounded up. */
function ceilDivPowerOfTen(numerator: bigint, digits: number): bigint {
  const divisor = 10n ** BigInt(digits);
  return (numerator + divisor - 1n) / divisor;
}

/**
 * The value of a quantity (an integer, or a string such as `500m`, `2Gi`, `1e3`) in nano units,
 * rounded up as Kubernetes rounds; undefined when it is not a non-negative quantity
 * (RESOURCE_QUANTITY_PATTERN).
 */
export function quantityNanos(value: string | number): bigint | undefined {
  if (typeof value === 'number') {
    return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) * NANOS_PER_UNIT : undefined;
  }
  if (!QUANTITY.test(value)) return undefined;
  const [, number = '', suffix = ''] = /^\+?([0-9.]+)(.*)$/.exec(value) ?? [];
  const [whole = '', fraction = ''] = number.split('.');
  const mantissa = BigInt(`${whole}${fraction}` || '0');
  // value * 10^9 = mantissa * 2^binary * 10^(decimal + 9 - fraction digits)
  let binary = 0;
  let decimal = 9 - fraction.length;
  if (suffix in BINARY_SUFFIXES) binary = BINARY_SUFFIXES[suffix] ?? 0;
  else if (suffix in DECIMAL_SUFFIXES) decimal += DECIMAL_SUFFIXES[suffix] ?? 0;
  else decimal += Number(suffix.slice(1));
  const scaled = mantissa * 2n ** BigInt(binary);
  return decimal >= 0 ? scaled * 10n ** BigInt(decimal) : ceilDivPowerOfTen(scaled, -decimal);
}

/** Whole units, when the quantity is a whole number. */
export function quantityUnits(nanos: bigint): bigint | undefined {
  return nanos % NANOS_PER_UNIT === 0n ? nanos / NANOS_PER_UNIT : undefined;
}

/** Whole units, rounded up (`1500m` is 2). */
export function quantityCeilUnits(nanos: bigint): bigint {
  return (nanos + NANOS_PER_UNIT - 1n) / NANOS_PER_UNIT;
}

/** `value` as nano units, for bounds written as whole units. */
export function unitsToNanos(units: number): bigint {
  return BigInt(units) * NANOS_PER_UNIT;
}
