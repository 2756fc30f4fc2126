/**
 * JSON Schema validators the report tests share: the JSON report against the schema waitgraph
 * ships (draft 2020-12), and SARIF against the SARIF 2.1.0 schema as published by Microsoft's
 * @microsoft/jest-sarif package (sarif-2.1.0-rtm.5.json, JSON Schema draft-04). No npm package
 * ships the OASIS file `sarif-schema-2.1.0.json` under that name; rtm.5 is the release candidate
 * that OASIS approved as 2.1.0 and the one SchemaStore serves for `sarif-2.1.0.json`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv2020 } from 'ajv/dist/2020.js';
import AjvDraft04 from 'ajv-draft-04';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { readReportSchema } from '../../src/report/schema/index.js';

const require = createRequire(import.meta.url);

export const SARIF_SCHEMA_PATH = require.resolve('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json');

let reportValidator: ValidateFunction | null = null;
let sarifValidator: ValidateFunction | null = null;

function describe(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).slice(0, 8).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`).join('\n');
}

/** Returns '' when `data` is a valid JSON report, else the first errors, one a line. */
export function reportSchemaErrors(data: unknown): string {
  if (!reportValidator) {
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    reportValidator = ajv.compile(readReportSchema());
  }
  return reportValidator(data) ? '' : describe(reportValidator.errors);
}

/** Returns '' when `data` is a valid SARIF 2.1.0 log, else the first errors. */
export function sarifSchemaErrors(data: unknown): string {
  if (!sarifValidator) {
    // The SARIF schema uses `format: uri` etc.; formats are not checked (no ajv-formats), URIs
    // are checked by the SARIF test itself. `unicodeRegExp: false`: the published schema's
    // `language` pattern (`^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$`) has a stray `]` that only
    // non-unicode regular expressions accept.
    const ajv = new AjvDraft04.default({ allErrors: true, strict: false, validateFormats: false, unicodeRegExp: false });
    sarifValidator = ajv.compile(JSON.parse(readFileSync(SARIF_SCHEMA_PATH, 'utf8')));
  }
  const validate = sarifValidator;
  return validate(data) ? '' : describe(validate.errors);
}
