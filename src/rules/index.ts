/** Rules as data: the loader, the compiled types and the per-backtrace matcher. */
export { loadRules, builtinRulesDir, type LoadRulesOptions } from './load.js';
export { createMatcher, conditionHoldsAt, type Matcher, type MatcherOptions, type Fingerprint, type PreparedStack, type RuleHit, type HitAlternative } from './match.js';
export { normalizeFunctionName, stripLeadingUnderscores } from './function-names.js';
export { normalizeAddress, parseArgValue, type ParsedArgValue } from './arg-values.js';
export { compilePattern, checkRegexSafety, PatternError, type NameTest, type NamePatternInput } from './pattern.js';
export { expandTemplate, templatePlaceholders, TemplateExpander } from './template.js';
export type { LoadedRules, ThreadRule, CycleRule, Rule, FrameCondition, Shape, Position } from './types.js';
