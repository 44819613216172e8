/**
 * RFC 29 hostlists: the compact `prefix[0-3,7]suffix,other` form Flux uses for host names, in
 * broker.toml `hosts` entries and in R's `nodelist`.
 *
 * A hostlist is an ordered list: the order defines broker ranks, so encoding never sorts and only
 * merges hosts that are adjacent in the input and differ in one run of digits (the rightmost such
 * run: `node[0-3]-eth2`). Zero padding is taken from the first id of a bracket
 * (`[00-2]` is `00,01,02`); the encoder only puts ids of one width into a bracket and the decoder
 * rejects brackets whose padding two readings could disagree on (`[1,05]`), so a hostlist means the
 * same thing here and in flux-core.
 */

/** Decoding more hosts than this is taken as a mistake (a typo such as `node[0-1000000]`). */
export const MAX_DECODED_HOSTS = 100_000;

/** RFC 29: prefix and suffix are printable non-whitespace ASCII except `[`, `]` and `,`. */
const HOST_CHARACTERS = /^[\x21-\x2b\x2d-\x5a\x5c\x5e-\x7e]+$/;

/** A maximal run of digits, e.g. the `0` and the `12` of `burst-0-12`. */
const DIGIT_RUN = /\d+/g;

export class HostlistError extends Error {
  override name = 'HostlistError';
}

/** A host name read as `prefix` + number + `suffix`, at one of its digit runs. */
interface NumberedHost {
  prefix: string;
  digits: string;
  suffix: string;
}

/** Adjacent hosts sharing prefix, suffix and zero-padding width: one `prefix[...]suffix` term. */
interface BracketGroup {
  /** The group's first host, written as is while it stays alone. */
  firstHost: string;
  /** How the hosts are numbered; undefined until a second host shows which digit run varies. */
  numbering?: { prefix: string; suffix: string; width: number };
  ids: number[];
}

function isZeroPadded(digits: string): boolean {
  return digits.length > 1 && digits.startsWith('0');
}

function formatId(id: number, width: number): string {
  return String(id).padStart(width, '0');
}

function assertValidHost(host: string): void {
  if (!HOST_CHARACTERS.test(host)) {
    throw new HostlistError(
      `invalid host name ${JSON.stringify(host)}: host names must be non-empty printable ASCII ` +
        'without whitespace, brackets or commas',
    );
  }
}

/** Consecutive ascending ids become `lo-hi`; everything else stays in input order. */
function formatIdList(ids: readonly number[], width: number): string {
  const parts: string[] = [];
  let runStart = 0;
  for (let index = 1; index <= ids.length; index++) {
    const continuesRun = index < ids.length && ids[index] === (ids[index - 1] as number) + 1;
    if (continuesRun) continue;
    const low = ids[runStart] as number;
    const high = ids[index - 1] as number;
    parts.push(low === high ? formatId(low, width) : `${formatId(low, width)}-${formatId(high, width)}`);
    runStart = index;
  }
  return parts.join(',');
}

function formatGroup(group: BracketGroup): string {
  if (!group.numbering) return group.firstHost;
  const { prefix, suffix, width } = group.numbering;
  return `${prefix}[${formatIdList(group.ids, width)}]${suffix}`;
}

/** Every reading of `host` as prefix + number + suffix, the rightmost digit run first. */
function numberings(host: string): NumberedHost[] {
  const readings: NumberedHost[] = [];
  for (const match of host.matchAll(DIGIT_RUN)) {
    const start = match.index;
    const digits = match[0];
    if (!Number.isSafeInteger(Number(digits))) continue; // too large to hold exactly: not a number here
    readings.push({ prefix: host.slice(0, start), digits, suffix: host.slice(start + digits.length) });
  }
  return readings.reverse();
}

function widthOf(digits: string): number {
  return isZeroPadded(digits) ? digits.length : 0;
}

/** Whether `host` can be the next id of `group`; if so, records it. */
function tryAppend(group: BracketGroup, host: string): boolean {
  if (group.numbering) {
    const { prefix, suffix, width } = group.numbering;
    if (!host.startsWith(prefix) || !host.endsWith(suffix) || host.length <= prefix.length + suffix.length) {
      return false;
    }
    // The prefix never ends and the suffix never starts with a digit (digit runs are maximal), so
    // what lies between them is this host's whole number, if it is one.
    const digits = host.slice(prefix.length, host.length - suffix.length);
    const id = Number(digits);
    if (!/^\d+$/.test(digits) || !Number.isSafeInteger(id) || formatId(id, width) !== digits) return false;
    group.ids.push(id);
    return true;
  }
  // Second host: find the digit run in which the two differ (prefer the rightmost, `node[0-3]-eth2`).
  const firstReadings = numberings(group.firstHost);
  for (const reading of numberings(host)) {
    const first = firstReadings.find(
      (candidate) => candidate.prefix === reading.prefix && candidate.suffix === reading.suffix,
    );
    if (!first) continue;
    const width = widthOf(first.digits);
    if (formatId(Number(reading.digits), width) !== reading.digits) continue;
    group.numbering = { prefix: first.prefix, suffix: first.suffix, width };
    group.ids = [Number(first.digits), Number(reading.digits)];
    return true;
  }
  return false;
}

/**
 * Encodes an ordered list of host names as a compact RFC 29 hostlist. Order is preserved exactly:
 * `decodeHostlist(encodeHostlist(hosts))` returns `hosts`.
 */
export function encodeHostlist(hosts: readonly string[]): string {
  const terms: string[] = [];
  let group: BracketGroup | undefined;
  for (const host of hosts) {
    assertValidHost(host);
    if (group && tryAppend(group, host)) continue;
    if (group) terms.push(formatGroup(group));
    group = { firstHost: host, ids: [] };
  }
  if (group) terms.push(formatGroup(group));
  return terms.join(',');
}

/** Splits at commas outside brackets; commas inside brackets separate ids. */
function splitTerms(hostlist: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let termStart = 0;
  for (let index = 0; index < hostlist.length; index++) {
    const character = hostlist[index];
    if (character === '[') {
      if (depth > 0) {
        throw new HostlistError(`nested '[' at position ${index} in ${JSON.stringify(hostlist)}`);
      }
      depth = 1;
    } else if (character === ']') {
      if (depth === 0) {
        throw new HostlistError(`unmatched ']' at position ${index} in ${JSON.stringify(hostlist)}`);
      }
      depth = 0;
    } else if (character === ',' && depth === 0) {
      terms.push(hostlist.slice(termStart, index));
      termStart = index + 1;
    }
  }
  if (depth > 0) throw new HostlistError(`unclosed '[' in ${JSON.stringify(hostlist)}`);
  terms.push(hostlist.slice(termStart));
  return terms;
}

function parseId(text: string, term: string): number {
  if (!/^\d+$/.test(text)) {
    throw new HostlistError(
      `invalid id ${JSON.stringify(text)} in ${JSON.stringify(term)}: ids are decimal digits`,
    );
  }
  const id = Number(text);
  if (!Number.isSafeInteger(id)) {
    throw new HostlistError(`id ${text} in ${JSON.stringify(term)} is too large`);
  }
  return id;
}

function expandIdList(idList: string, term: string, budget: number): string[] {
  if (idList === '') throw new HostlistError(`empty brackets in ${JSON.stringify(term)}`);
  const elements = idList.split(',');
  const firstNumber = (elements[0] as string).split('-')[0] as string;
  const width = widthOf(firstNumber);
  const checkPadding = (digits: string): void => {
    // RFC 29 pads every id to the first id's width; flux-core pads each range to its own. The two
    // agree unless a later id is padded differently from the first, so such lists are refused.
    if (isZeroPadded(digits) && digits.length !== width) {
      throw new HostlistError(
        `ambiguous zero padding in ${JSON.stringify(term)}: ${JSON.stringify(digits)} is padded ` +
          `differently from the first id ${JSON.stringify(firstNumber)}`,
      );
    }
  };
  const ids: string[] = [];
  for (const element of elements) {
    const bounds = element.split('-');
    if (bounds.length > 2 || element === '') {
      throw new HostlistError(`invalid range ${JSON.stringify(element)} in ${JSON.stringify(term)}`);
    }
    const lowText = bounds[0] as string;
    const highText = bounds[1] ?? lowText;
    const low = parseId(lowText, term);
    const high = parseId(highText, term);
    checkPadding(lowText);
    checkPadding(highText);
    if (low > high) {
      throw new HostlistError(`descending range ${JSON.stringify(element)} in ${JSON.stringify(term)}`);
    }
    if (ids.length + (high - low + 1) > budget) {
      throw new HostlistError(`${JSON.stringify(term)} expands to more than ${MAX_DECODED_HOSTS} hosts`);
    }
    for (let id = low; id <= high; id++) ids.push(formatId(id, width));
  }
  return ids;
}

/** Expands an RFC 29 hostlist into host names in order. The empty string is the empty list. */
export function decodeHostlist(hostlist: string): string[] {
  if (hostlist === '') return [];
  const hosts: string[] = [];
  for (const term of splitTerms(hostlist)) {
    if (term === '') {
      throw new HostlistError(
        `empty host in ${JSON.stringify(hostlist)} (leading, trailing or doubled comma)`,
      );
    }
    const open = term.indexOf('[');
    if (open < 0) {
      assertValidHost(term);
      hosts.push(term);
      if (hosts.length > MAX_DECODED_HOSTS) {
        throw new HostlistError(`hostlist expands to more than ${MAX_DECODED_HOSTS} hosts`);
      }
      continue;
    }
    const close = term.indexOf(']', open);
    const prefix = term.slice(0, open);
    const suffix = term.slice(close + 1);
    if (suffix.includes('[')) {
      throw new HostlistError(
        `more than one bracket in ${JSON.stringify(term)}: use one [idlist] per host term`,
      );
    }
    for (const part of [prefix, suffix]) {
      if (part !== '' && !HOST_CHARACTERS.test(part)) {
        throw new HostlistError(`invalid characters in ${JSON.stringify(term)}`);
      }
    }
    const ids = expandIdList(term.slice(open + 1, close), term, MAX_DECODED_HOSTS - hosts.length);
    for (const id of ids) hosts.push(`${prefix}${id}${suffix}`);
  }
  return hosts;
}

/** Host names `<base>-<first>` ... `<base>-<first + count - 1>`: Kubernetes indexed-Job pod hostnames. */
export function indexedHostNames(base: string, count: number, first = 0): string[] {
  if (!Number.isSafeInteger(count) || count < 0 || !Number.isSafeInteger(first) || first < 0) {
    throw new HostlistError(`invalid host range for ${JSON.stringify(base)}: first ${first}, count ${count}`);
  }
  return Array.from({ length: count }, (_, offset) => `${base}-${first + offset}`);
}
