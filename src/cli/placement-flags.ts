/**
 * The install command's placement flags, in kubectl's own syntax so they read the same as elsewhere:
 * `--node-selector key=value` (as `kubectl label`) and `--toleration key[=value]:Effect` (as
 * `kubectl taint`). Each parser throws InputError naming the flag and the fix.
 */
import type { V1Toleration } from '@kubernetes/client-node';
import { LABEL_VALUE_MAX_LENGTH } from '../api/shared/limits.ts';
import { isQualifiedName } from '../api/shared/qualified-names.ts';
import { LABEL_VALUE_PATTERN } from '../api/shared/schema-helpers.ts';
import { InputError } from './input-error.ts';

const EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;
const LABEL_VALUE = new RegExp(LABEL_VALUE_PATTERN);

function checkKey(flag: string, given: string, key: string): void {
  if (!isQualifiedName(key)) {
    throw new InputError([
      `${flag} ${JSON.stringify(given)}: ${JSON.stringify(key)} is not a label key ` +
        '(an optional DNS prefix and "/", then up to 63 letters, digits, "-", "_", ".")',
    ]);
  }
}

function checkValue(flag: string, given: string, value: string): void {
  if (!LABEL_VALUE.test(value) || value.length > LABEL_VALUE_MAX_LENGTH) {
    throw new InputError([
      `${flag} ${JSON.stringify(given)}: ${JSON.stringify(value)} is not a label value ` +
        '(up to 63 letters, digits, "-", "_", ".", starting and ending alphanumeric)',
    ]);
  }
}

/** `--node-selector key=value`, repeated: the Deployment's nodeSelector. */
export function parseNodeSelectors(given: readonly string[]): Record<string, string> {
  const selector: Record<string, string> = {};
  for (const entry of given) {
    const equals = entry.indexOf('=');
    if (equals <= 0) {
      throw new InputError([`--node-selector ${JSON.stringify(entry)}: expected key=value`]);
    }
    const key = entry.slice(0, equals);
    const value = entry.slice(equals + 1);
    checkKey('--node-selector', entry, key);
    checkValue('--node-selector', entry, value);
    selector[key] = value;
  }
  return selector;
}

/** `--toleration key[=value]:Effect`, repeated: tolerations matching taints of that form. */
export function parseTolerations(given: readonly string[]): V1Toleration[] {
  return given.map((entry) => {
    const colon = entry.lastIndexOf(':');
    const effect = colon === -1 ? '' : entry.slice(colon + 1);
    if (colon <= 0 || !(EFFECTS as readonly string[]).includes(effect)) {
      throw new InputError([
        `--toleration ${JSON.stringify(entry)}: expected key[=value]:Effect, Effect one of ${EFFECTS.join(', ')}`,
      ]);
    }
    const keyValue = entry.slice(0, colon);
    const equals = keyValue.indexOf('=');
    const key = equals === -1 ? keyValue : keyValue.slice(0, equals);
    checkKey('--toleration', entry, key);
    if (equals === -1) return { key, operator: 'Exists', effect };
    const value = keyValue.slice(equals + 1);
    checkValue('--toleration', entry, value);
    return { key, operator: 'Equal', value, effect };
  });
}
