/**
 * The `.edges` golden of a rule: exactly what the rule yields on an analysis, one line each,
 * threads in number order:
 *
 *   thread 9 fired                         the rule fired on thread 9
 *   thread 9 state gc-initiator            … and its state is the one the thread got
 *   thread 9 waits julia:gc-stop #2        a wait edge (#level of the rule's site frame)
 *   thread 9 holds orc:lazy-compile #161   a hold edge
 *   thread 9 waits-thread 7 gc-unsafe #0   an all-of wait, expanded to thread 7
 *   deadlock 7,8,9                         (cycle rules) a deadlock the rule names
 */
import type { Analysis } from '../../src/model/analysis.js';
import { compareThreadKeys } from '../../src/model/ids.js';

const key = (node: string): string => node.slice(node.indexOf(':') + 1);

export function ruleLines(analysis: Analysis, ruleId: string, kind: 'thread' | 'cycle'): string[] {
  if (kind === 'cycle') return analysis.deadlocks.filter((d) => d.rules.includes(ruleId)).map((d) => `deadlock ${d.threads.join(',')}`);
  const rows: Array<{ thread: string; text: string }> = [];
  for (const t of analysis.threads) {
    if (!t.rules.includes(ruleId)) continue;
    rows.push({ thread: t.key, text: 'fired' });
    if (t.stateRule === ruleId) rows.push({ thread: t.key, text: `state ${t.state}` });
  }
  for (const e of analysis.edges) {
    if (e.ruleId !== ruleId) continue;
    const site = e.site ? ` #${e.site.level}` : '';
    if (e.kind === 'waits') rows.push({ thread: key(e.from), text: `waits ${key(e.to)}${site}` });
    else if (e.kind === 'holds') rows.push({ thread: key(e.to), text: `holds ${key(e.from)}${site}` });
    else rows.push({ thread: key(e.from), text: `waits-thread ${key(e.to)} ${e.viaState ?? '?'}${site}` });
  }
  const order = (t: string): number => (t === 'fired' ? 0 : t.startsWith('state') ? 1 : 2);
  return [
    ...new Set(
      rows
        .sort((a, b) => compareThreadKeys(a.thread, b.thread) || order(a.text) - order(b.text) || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0))
        .map((r) => `thread ${r.thread} ${r.text}`),
    ),
  ];
}
