/** The exit-code contract (as ESLint and knip): 0 nothing found, 1 found, 2 could not analyse. */
export const ExitCode = { Ok: 0, Found: 1, Failure: 2 } as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
