/**
 * The JSON Schema of the JSON report ships as a plain .json file (so editors and `ajv` can use it
 * directly) at src/report/schema/report.schema.json in the package; `waitgraph schema` prints it.
 * It is read from the package root because tsc does not copy .json files into dist/.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** dist/src/report/schema/index.js → package root → src/report/schema/report.schema.json */
export const REPORT_SCHEMA_PATH = fileURLToPath(new URL('../../../../src/report/schema/report.schema.json', import.meta.url));

export function readReportSchemaText(): string {
  return readFileSync(REPORT_SCHEMA_PATH, 'utf8');
}

export function readReportSchema(): Record<string, unknown> {
  return JSON.parse(readReportSchemaText()) as Record<string, unknown>;
}
