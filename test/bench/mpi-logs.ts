// What `npm run bench -- --mpi` reads from the programs' output: LAMMPS's loop time, NetPIPE's rows and
// the pair styles a LAMMPS was built with (`lmp -h`). Pure; each throws, quoting the output's end, when
// the output lacks what it looks for.

/** LAMMPS's timing line: `Loop time of 0.304077 on 2 procs for 250 steps with 4000 atoms`. */
export interface LammpsLoop {
  seconds: number;
  procs: number;
  steps: number;
  atoms: number;
}

/** NetPIPE's figures: the 1-byte row's time and the bandwidth of its largest message. */
export interface NetpipeFigures {
  /** Half the round trip of 1 byte (what NetPIPE prints as `usec`). */
  latencyMicros: number;
  /** The bandwidth of the row of the largest message. */
  bandwidthMbps: number;
  largestBytes: number;
  rows: number;
}

const LOOP = /Loop time of ([\d.]+(?:[eE][-+]?\d+)?) on (\d+) procs for (\d+) steps with (\d+) atoms/g;
// `  0:       1 bytes   1234 times -->      0.50 Mbps in      15.20 usec`
const NETPIPE_ROW = /^\s*\d+:\s+(\d+) bytes\s+\d+ times -->\s+([\d.]+) Mbps in\s+([\d.]+) usec\s*$/gm;
const TAIL_LINES = 20;

/** The output's last lines, for an error message. */
export function tail(output: string, lines = TAIL_LINES): string {
  return output.trimEnd().split('\n').slice(-lines).join('\n');
}

/** The last loop-time line of a LAMMPS run (a run of several `run` commands prints one each). */
export function lammpsLoop(output: string): LammpsLoop {
  const match = [...output.matchAll(LOOP)].at(-1);
  if (match === undefined) throw new Error(`no LAMMPS "Loop time of" line in:\n${tail(output)}`);
  return {
    seconds: Number(match[1]),
    procs: Number(match[2]),
    steps: Number(match[3]),
    atoms: Number(match[4]),
  };
}

/** NetPIPE's 1-byte latency and the bandwidth at the largest size of its rows. */
export function netpipeFigures(output: string): NetpipeFigures {
  const rows = [...output.matchAll(NETPIPE_ROW)].map((match) => ({
    bytes: Number(match[1]),
    mbps: Number(match[2]),
    usec: Number(match[3]),
  }));
  const oneByte = rows.find((row) => row.bytes === 1);
  if (oneByte === undefined) throw new Error(`no NetPIPE row of 1 byte in:\n${tail(output)}`);
  // The largest size; the last of its rows should NetPIPE print one twice.
  const largest = rows.reduce((best, row) => (row.bytes >= best.bytes ? row : best));
  return {
    latencyMicros: oneByte.usec,
    bandwidthMbps: largest.mbps,
    largestBytes: largest.bytes,
    rows: rows.length,
  };
}

/**
 * The pair styles `lmp -h` lists: the words of its `* Pair styles:` section, up to the next section
 * (`* ... styles:`) or the end. Throws when it has no such section (not LAMMPS's help).
 */
export function lammpsPairStyles(help: string): string[] {
  const lines = help.split('\n');
  const start = lines.findIndex((line) => line.trim() === '* Pair styles:');
  if (start < 0) throw new Error(`no "* Pair styles:" section in the output of lmp -h:\n${tail(help)}`);
  const end = lines.findIndex((line, index) => index > start && line.startsWith('* '));
  return lines
    .slice(start + 1, end < 0 ? undefined : end)
    .flatMap((line) => line.trim().split(/\s+/))
    .filter((word) => word !== '');
}

/** ReaxFF's pair style as this LAMMPS names it (`reaxff`, or `reax/c` before 2021), if it has it. */
export function reaxffPairStyle(help: string): string | undefined {
  const styles = lammpsPairStyles(help);
  return ['reaxff', 'reax/c'].find((style) => styles.includes(style));
}
