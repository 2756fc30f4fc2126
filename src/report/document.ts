/**
 * Several dumps in one run (`waitgraph -f FORMAT a.txt b.txt`) give one document of the format,
 * not one document per file glued together, so the output is something its reader accepts:
 * - SARIF: one log, one run, the results of every dump, each dump an artifact (code scanning takes
 *   one run per tool and category);
 * - DOT and SVG: one graph, one cluster per file; Mermaid: one flowchart, a subgraph per file;
 * - Markdown: one document, a `#` section per file (each file's report keeps its own headings);
 * - text and GitHub workflow commands are line streams: text keeps its `== file ==` banners;
 * - HTML is one self-contained page per dump: several are refused (a usage error), not glued.
 * JSON (an array of reports) is streamed by the CLI itself (report/json.ts).
 */
import { UsageError } from '../errors.js';
import type { Analysis } from '../model/analysis.js';
import { visible } from '../model/text-hygiene.js';
import { reporters, type Format, type Reporter, type ReportOptions } from './index.js';

export interface DocumentEntry {
  /** The dump's path as the user named it (`-` for standard input). */
  file: string;
  analysis: Analysis;
}

export async function renderDocument(entries: readonly DocumentEntry[], format: Exclude<Format, 'json'>, options: ReportOptions): Promise<string> {
  if (entries.length === 1) {
    const only = entries[0] as DocumentEntry;
    return reporters[format](only.analysis, { ...options, input: only.file });
  }
  const named = entries.map((entry) => ({ ...entry, file: entry.file === '-' ? 'standard input' : entry.file }));
  switch (format) {
    case 'sarif': {
      const { renderSarifLog } = await import('./sarif.js');
      return renderSarifLog(
        entries.map((entry) => ({ analysis: entry.analysis, ...(entry.file !== '-' ? { inputUri: entry.file } : {}) })),
        { ...(options.version ? { version: options.version } : {}), ...(options.sarifRoot ? { root: options.sarifRoot } : {}) },
      );
    }
    case 'dot':
      return (await import('./dot.js')).renderDotDocument(named);
    case 'svg': {
      const [{ renderDotDocument }, { dotToSvg }] = await Promise.all([import('./dot.js'), import('./svg.js')]);
      return dotToSvg(renderDotDocument(named));
    }
    case 'mermaid':
      return (await import('./mermaid.js')).renderMermaidDocument(named);
    case 'markdown': {
      const parts: string[] = [];
      for (const entry of named) parts.push(`# \`${entry.file.replace(/`/g, "'")}\`\n\n${await reporters.markdown(entry.analysis, { ...options, input: entry.file })}`);
      return parts.join('\n');
    }
    case 'html':
      throw new UsageError(`--format html makes one page per dump: give one dump, or --format markdown for ${entries.length} in one document`);
    case 'github': {
      const parts: string[] = [];
      for (const entry of entries) parts.push(await reporters.github(entry.analysis, { ...options, input: entry.file }));
      return parts.join('');
    }
    case 'text': {
      const parts: string[] = [];
      // As before several formats had one document: the banner names the file as given.
      const text: Reporter = reporters.text;
      for (const entry of entries) parts.push(`${options.chalk.bold(`== ${visible(entry.file, { oneLine: true })} ==`)}\n${await text(entry.analysis, { ...options, input: entry.file })}`);
      return parts.join('\n');
    }
  }
}
