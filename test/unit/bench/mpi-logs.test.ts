import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lammpsLoop, lammpsPairStyles, netpipeFigures, reaxffPairStyle, tail } from '../../bench/mpi-logs.ts';

const MELT = `LAMMPS (23 Jun 2022 - Update 1)
  using 1 OpenMP thread(s) per MPI task
Lattice spacing in x,y,z = 1.6795962 1.6795962 1.6795962
  1 by 1 by 2 MPI processor grid
Created 4000 atoms
Step Temp E_pair E_mol TotEng Press
       0            3   -6.7733681            0   -2.2744931   -3.7033504
     250    1.6505576   -4.7791476            0   -2.3031573    5.5906219
Loop time of 0.304077 on 2 procs for 250 steps with 4000 atoms

Performance: 355173.101 tau/day, 822.160 timesteps/s
Total wall time: 0:00:00
`;

const NETPIPE = `0: netpipe-0
1: netpipe-1
Now starting the main loop
  0:       1 bytes   3289 times -->      0.51 Mbps in      14.95 usec
  1:       2 bytes   3344 times -->      1.02 Mbps in      14.96 usec
  2:       3 bytes   3342 times -->      1.53 Mbps in      14.97 usec
 63:   65533 bytes    563 times -->   7946.37 Mbps in      62.92 usec
 64:   65536 bytes    794 times -->   8064.52 Mbps in      62.00 usec
 65:   65539 bytes    806 times -->   8001.10 Mbps in      62.49 usec
`;

const HELP = `Large-scale Atomic/Molecular Massively Parallel Simulator - 23 Jun 2022 - Update 1

Usage example: lmp -var t 300 -echo screen -in in.alloy

Installed packages:

KSPACE MANYBODY MOLECULE

List of individual style options included in this LAMMPS executable

* Atom styles:

atomic          charge          full

* Pair styles:

born            buck            buck/coul/cut   coul/cut        lj/cut
lj/cut/coul/cut morse           table           zbl

* Bond styles:

harmonic        morse
`;

describe('LAMMPS loop time', () => {
  it('reads seconds, ranks, steps and atoms from the timing line', () => {
    assert.deepEqual(lammpsLoop(MELT), { seconds: 0.304077, procs: 2, steps: 250, atoms: 4000 });
  });

  it('takes the last run of several, and seconds in exponent form', () => {
    const log = `${MELT}Loop time of 1.5e-05 on 4 procs for 0 steps with 4000 atoms\n`;
    assert.deepEqual(lammpsLoop(log), { seconds: 0.000015, procs: 4, steps: 0, atoms: 4000 });
  });

  it('throws with the end of the output when there is none', () => {
    assert.throws(
      () =>
        lammpsLoop(
          'ERROR: Unrecognized pair style reaxff (src/force.cpp:279)\nLast command: pair_style reaxff\n',
        ),
      /^Error: no LAMMPS "Loop time of" line in:\nERROR: Unrecognized pair style reaxff \(src\/force.cpp:279\)\nLast command: pair_style reaxff$/,
    );
  });
});

describe('NetPIPE figures', () => {
  it('is the 1-byte row time and the bandwidth of the largest size', () => {
    assert.deepEqual(netpipeFigures(NETPIPE), {
      latencyMicros: 14.95,
      bandwidthMbps: 8001.1,
      largestBytes: 65539,
      rows: 6,
    });
  });

  it('reads the rows among other output (stderr and stdout together) and with carriage returns', () => {
    const output = `  0:       1 bytes      7 times -->      0.00 Mbps in    3999.50 usec\r\nsome warning\n  1:       2 bytes     12 times -->      0.01 Mbps in    2001.00 usec\n`;
    assert.deepEqual(netpipeFigures(output), {
      latencyMicros: 3999.5,
      bandwidthMbps: 0.01,
      largestBytes: 2,
      rows: 2,
    });
  });

  it('throws when no row is of 1 byte', () => {
    assert.throws(
      () => netpipeFigures('Need at least two processes\n'),
      /^Error: no NetPIPE row of 1 byte in:\nNeed at least two processes$/,
    );
  });
});

describe("LAMMPS's pair styles", () => {
  it('are the words of the "* Pair styles:" section', () => {
    assert.deepEqual(lammpsPairStyles(HELP), [
      'born',
      'buck',
      'buck/coul/cut',
      'coul/cut',
      'lj/cut',
      'lj/cut/coul/cut',
      'morse',
      'table',
      'zbl',
    ]);
    assert.equal(reaxffPairStyle(HELP), undefined);
  });

  it('name ReaxFF as the build does, reaxff or reax/c', () => {
    assert.equal(reaxffPairStyle(HELP.replace('morse           table', 'reaxff          table')), 'reaxff');
    assert.equal(reaxffPairStyle(HELP.replace('zbl\n', 'zbl reax/c\n')), 'reax/c');
  });

  it('reach the end of the help when the section is the last', () => {
    assert.deepEqual(lammpsPairStyles('* Pair styles:\n\nlj/cut  zbl\n'), ['lj/cut', 'zbl']);
  });

  it('throw when the output is not the help', () => {
    assert.throws(() => lammpsPairStyles('exec: lmp: not found\n'), /^Error: no "\* Pair styles:" section/);
  });
});

describe('tail', () => {
  it('is the last lines, trailing blanks dropped', () => {
    assert.equal(tail('a\nb\nc\nd\n\n', 2), 'c\nd');
    assert.equal(tail(Array.from({ length: 30 }, (_, i) => String(i)).join('\n')).split('\n')[0], '10');
  });
});
