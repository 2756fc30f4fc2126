/** Compiled rules: what the loader returns and the matcher runs. Plain objects and closures. */
import type { NameTest } from './pattern.js';
import type { LocalsRuleRaw, ThreadEffectRaw } from './schema.js';

export type Position = { kind: 'anywhere' } | { kind: 'top'; n: number } | { kind: 'within'; n: number };

export interface ArgCondition {
  name: string;
  symbol?: NameTest;
  value?: NameTest;
  address?: boolean;
}

export interface FrameCondition {
  fn?: NameTest;
  library?: NameTest;
  file?: NameTest;
  jitCode?: boolean;
  at: Position;
  next: boolean;
  maxGap?: number;
  args: ArgCondition[];
  site: boolean;
}

export interface Shape {
  frames: FrameCondition[];
  none: FrameCondition[];
  blocked?: boolean;
  truncated?: boolean;
  /** Indexes into LoadedRules.processConditions. */
  processHas: number[];
}

export interface RuleMeta {
  id: string;
  pack: string;
  summary: string;
  explanation: string;
  fix: string;
  sources: string[];
  /** The file the rule came from (absolute path). */
  file: string;
  builtin: boolean;
  /** The id of the rule this one replaced (`overrides:`), when it did. */
  overrides?: string;
}

export interface ThreadRule extends RuleMeta {
  kind: 'thread';
  base: Shape;
  /** Alternatives, at least one of which must hold (empty = none required). */
  anyOf: Shape[];
  unlessRules: string[];
  effect: ThreadEffectRaw;
}

export interface CycleRule extends RuleMeta {
  kind: 'cycle';
  requiredRules: string[];
  title: string;
}

/** One member condition of a locals rule (schema LocalFieldSchema), compiled. */
export interface LocalField {
  name: string;
  address?: boolean;
  addresses?: boolean;
  taggedPointer?: boolean;
  value?: NameTest;
}

/** A `bt full` local that is a held guard (analyze/locals-holds.ts reads it). */
export interface LocalsRule extends RuleMeta {
  kind: 'locals';
  name?: NameTest;
  type?: NameTest;
  pointer: boolean;
  fields: LocalField[];
  exact: boolean;
  notIn?: NameTest;
  effect: LocalsRuleRaw['effect'];
}

export type Rule = ThreadRule | CycleRule | LocalsRule;

export interface LoadedRules {
  /** Thread rules in evaluation order: every rule comes after the rules its `unlessRules` name. */
  threadRules: ThreadRule[];
  cycleRules: CycleRule[];
  /** Rules on `bt full` locals (held guards), in load order; absent in rule sets built before they existed. */
  localsRules?: LocalsRule[];
  /** The wait primitives skipped at the top of a stack (futex, pthread_cond_wait, …). */
  primitives: FrameCondition[];
  /**
   * Frames of lock and runtime libraries (std::shared_mutex::lock, __gthread_once, pthread_*)
   * skipped after the primitives to find where a thread waits, as reports show it. Name tests only.
   */
  lockWrappers: FrameCondition[];
  /** Every distinct `processHas` condition of every rule; shapes refer to them by index. */
  processConditions: FrameCondition[];
  byId: Map<string, Rule>;
  /** Files read, in load order. */
  files: string[];
}
