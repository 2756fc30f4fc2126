/**
 * `--gdb-commands FILE`: the questions a report asks gdb, as a command file to run on the hung
 * process. Its output reads like an interactive session — each command is echoed as `(gdb) …`
 * before gdb's answer — so appending it to the dump and analysing again links every answer to the
 * wait it answers (src/analyze/owner-links.ts) and proves what the dump alone could not:
 *
 *     gdb -p PID -batch -x FILE >> dump.txt && waitgraph dump.txt
 *
 * gdb stops a command file at its first error, so the questions that can fail come last: first
 * the owners at addresses the frames show (owner-shape queries, built from validated addresses
 * only), then the links unlinked answers need, then a Python block for the questions with version
 * variants (the GIL) or an architecture (`$rdi`), each tried on its own. Commands from a user's
 * rule file are written as comments, never to be run unread.
 */
import type { Analysis } from '../model/analysis.js';
import { planOwnerQueries, queryFor } from '../live/owner-queries.js';

/** An expression that reads memory and calls nothing: names, members, casts, `*`, `&`, hex, no `=`, `,`, quotes or calls. */
export function safeGdbExpression(expression: string): boolean {
  if (expression.length === 0 || expression.length > 500) return false;
  // Spaces only: a line break would start a command of its own.
  if (!/^[\w .*&>():[\]$-]+$/.test(expression)) return false;
  if (/[\w\]]\s*\(/.test(expression) || /--|\+\+/.test(expression)) return false;
  return true;
}

/** A command a report shows that the file may run: `print EXPR`, perhaps under `thread apply N [frame apply level K]`. */
export function safeGdbCommand(command: string): boolean {
  const m = /^(?:thread apply \d{1,9}(?:\.\d{1,9})? (?:frame apply level \d{1,6} )?)?print ([^\n]+)$/.exec(command);
  return m !== null && safeGdbExpression(m[1] as string);
}

export function gdbCommandFile(analysis: Analysis, input: string): string {
  const out: string[] = [
    `# waitgraph: gdb commands that ask who holds the locks the threads of ${oneLine(input)} wait for.`,
    '# Run them on the hung process and append gdb\'s answers to the dump, then analyse it again:',
    '#   gdb -p PID -batch -x THIS_FILE >> DUMP && waitgraph DUMP',
    '# gdb stops at the first command that fails, so the ones that may fail come last.',
    'set pagination off',
    'set width 0',
    'set print pretty off',
  ];
  const plain: string[] = [];
  const variants: string[][] = [];
  for (const q of planOwnerQueries(analysis)) {
    if (q.expressions.length === 1) plain.push(`print ${q.expressions[0] as string}`);
    else variants.push(q.expressions);
  }
  const registers: string[] = [];
  const linking: string[] = [];
  const unread: string[] = [];
  for (const u of analysis.unresolved) {
    const command = u.gdbCommand;
    if (command === null || plain.includes(command)) continue;
    if (u.ownerShape === undefined && queryFor(u.resource) === null && /\$rdi\b/.test(command) && safeGdbCommand(command)) {
      if (!registers.includes(command)) registers.push(command);
    } else if (u.ownerShape === undefined && !plain.includes(command)) {
      if (!unread.includes(command)) unread.push(command);
    }
  }
  for (const u of analysis.unlinkedOwners ?? []) {
    const command = u.gdbCommand;
    // `print &$4` means something only in the session that printed `$4`.
    if (command === null || /\$\d/.test(command) || !safeGdbCommand(command) || linking.includes(command)) continue;
    linking.push(command);
  }
  if (plain.length + linking.length + variants.length + registers.length === 0) out.push('# Nothing to ask: no wait in the dump has an owner gdb can read.');
  for (const command of [...plain, ...linking]) out.push(`echo (gdb) ${command}\\n`, command);
  for (const command of unread) out.push(`# From a rule file, not run (read it first): ${oneLine(command)}`);
  if (variants.length > 0 || registers.length > 0) {
    out.push(
      '# Each question below is tried on its own (Python): an expression of another CPython version, or a',
      '# register of another architecture, does not stop the rest.',
      'python',
      'import gdb',
      'def waitgraph_ask(commands):',
      '    for command in commands:',
      '        try:',
      '            if command.startswith("print "):',
      '                gdb.parse_and_eval(command[len("print "):])',
      '        except gdb.error:',
      '            continue',
      '        print("(gdb) " + command)',
      '        try:',
      '            gdb.execute(command)',
      '        except gdb.error as error:',
      '            print(error)',
      '        return',
    );
    for (const v of variants) out.push(`waitgraph_ask(${JSON.stringify(v.map((e) => `print ${e}`))})`);
    if (registers.length > 0) {
      // In the futex syscall $rdi holds the futex word's address, the mutex's first field (x86-64 only).
      out.push('if gdb.selected_inferior().architecture().name() == "i386:x86-64":');
      for (const r of registers) out.push(`    waitgraph_ask(${JSON.stringify([r])})`);
    }
    out.push('end');
  }
  return `${out.join('\n')}\n`;
}

function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ');
}
