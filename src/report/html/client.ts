/**
 * The HTML report's page script (see html/index.ts, which embeds tsc's output of this file under
 * a CSP hash). Plain DOM, no framework, no `eval`, no `innerHTML`: text goes in through
 * `textContent`, and the stacks shown in the panel are clones of the page's own elements.
 *
 * - A click on a thread button (`button.t`), a thread node of the graph, or a group's member
 *   shows that thread's stack in the side panel, with its marked frames (the verdict's, other
 *   rules', where it waits) highlighted and their notes listed.
 * - A resource node lists who waits for it and who holds it; a node of interchangeable threads
 *   opens their group.
 * - The search box filters the groups by function name (or a thread number).
 * - A group's member buttons are made when it is first opened, so 10,000 threads cost nothing
 *   until asked for.
 *
 * All state lives in this function's closure.
 */
import type { Hit, PageData, ThreadRow } from './data.js';

(() => {
  const dataElement = document.getElementById('wg-data');
  if (!dataElement) return;
  const data = JSON.parse(dataElement.textContent ?? '{}') as PageData;
  const rows = new Map<string, ThreadRow>();
  const members: string[][] = data.groups.map(() => []);
  for (const row of data.threads) {
    rows.set(row[0], row);
    members[row[1]]?.push(row[0]);
  }
  const own = new Set(data.own);
  const groupElements = Array.from(document.querySelectorAll<HTMLDetailsElement>('details.g'));

  const panelTitle = document.getElementById('p-title')!;
  const panelState = document.getElementById('p-state')!;
  const panelNotes = document.getElementById('p-notes')!;
  const panelStack = document.getElementById('p-stack')!;

  const title = (key: string): string => {
    const headerless = /^bt@(\d+)$/.exec(key);
    let text = headerless ? `backtrace at line ${headerless[1]}` : `thread ${key}`;
    const row = rows.get(key);
    if (row && row[2] !== null) text += ` (LWP ${row[2]})`;
    if (row && row[3] !== null) text += ` "${row[3]}"`;
    return text;
  };

  const button = (key: string, label: string): HTMLButtonElement => {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 't';
    b.dataset['t'] = key;
    b.textContent = label;
    return b;
  };

  /** The stack element a thread is shown with: its own (a template) or its group's. */
  const stackOf = (key: string): HTMLElement | null => {
    if (own.has(key)) {
      const template = document.getElementById(`own-${key}`) as HTMLTemplateElement | null;
      return template?.content.querySelector<HTMLElement>('pre') ?? null;
    }
    const row = rows.get(key);
    return row ? (groupElements[row[1]]?.querySelector<HTMLElement>('pre.st') ?? null) : null;
  };

  /** A stack's lines as lists of cloned nodes (text split at line feeds, elements kept whole). */
  const linesOf = (pre: HTMLElement): Node[][] => {
    const lines: Node[][] = [[]];
    const addNode = (node: Node): void => {
      if (node.nodeType === Node.TEXT_NODE) {
        const parts = (node.textContent ?? '').split('\n');
        parts.forEach((part, i) => {
          if (i > 0) lines.push([]);
          if (part !== '') lines[lines.length - 1]!.push(document.createTextNode(part));
        });
      } else if (node.nodeName === 'MARK') {
        node.childNodes.forEach(addNode); // the panel marks lines itself
      } else {
        lines[lines.length - 1]!.push(node.cloneNode(true));
      }
    };
    pre.childNodes.forEach(addNode);
    return lines;
  };

  const clear = (element: Element): void => {
    while (element.firstChild) element.removeChild(element.firstChild);
  };

  const markSelected = (key: string | null): void => {
    for (const el of Array.from(document.querySelectorAll('.sel'))) el.classList.remove('sel');
    if (key === null) return;
    for (const el of Array.from(document.querySelectorAll<HTMLElement>('button.t'))) if (el.dataset['t'] === key) el.classList.add('sel');
    for (const node of graphNodes()) if (node.id === `thread:${key}`) node.element.classList.add('sel');
  };

  const showThread = (key: string): void => {
    const row = rows.get(key);
    if (!row) return;
    markSelected(key);
    panelTitle.textContent = title(key);
    clear(panelState);
    panelState.append(data.groups[row[1]] ?? '');
    const size = members[row[1]]?.length ?? 1;
    if (size > 1) {
      panelState.append(` · `);
      const open = document.createElement('button');
      open.type = 'button';
      open.className = 'link';
      open.dataset['g'] = String(row[1]);
      open.textContent = `its group: ${size} threads`;
      panelState.append(open);
    }
    const hits: Hit[] = data.hits[key] ?? [];
    const notesByLine = new Map<number, Hit[]>();
    for (const hit of hits) {
      const list = notesByLine.get(hit[0]);
      if (list) list.push(hit);
      else notesByLine.set(hit[0], [hit]);
    }
    clear(panelNotes);
    clear(panelStack);
    const pre = stackOf(key);
    if (!pre) {
      panelStack.textContent = 'No frames shown in the dump.';
      return;
    }
    linesOf(pre).forEach((nodes, index) => {
      const line = document.createElement('div');
      line.className = 'ln';
      const lineHits = notesByLine.get(index);
      if (nodes.length === 0) line.append('\u00a0');
      for (const node of nodes) line.append(node);
      if (lineHits) {
        line.classList.add('hit', ...new Set(lineHits.map((h) => h[2])));
        line.title = lineHits.map((h) => data.notes[h[1]] ?? '').join('\n');
        // The note names the frame as the stack shows it: `#159 julia___materialize_7661`.
        const level = /^#\d+/.exec(line.textContent ?? '')?.[0] ?? '';
        const name = line.querySelector('b')?.textContent ?? '';
        for (const hit of lineHits) {
          const li = document.createElement('li');
          li.className = hit[2];
          const frame = document.createElement('code');
          frame.textContent = `${level} ${name}`.trim();
          li.append(frame, ` ${data.notes[hit[1]] ?? ''}`);
          panelNotes.append(li);
        }
      }
      panelStack.append(line);
    });
  };

  const showResource = (id: string): void => {
    const links = data.resources[id];
    markSelected(null);
    panelTitle.textContent = id.replace(/^res:/, '');
    clear(panelState);
    clear(panelNotes);
    clear(panelStack);
    if (!links) return;
    const list = (label: string, keys: string[]): void => {
      const li = document.createElement('li');
      li.append(`${label}: `);
      if (keys.length === 0) li.append('nobody the dump shows');
      keys.forEach((key, i) => {
        if (i > 0) li.append(', ');
        li.append(button(key, title(key)));
      });
      panelNotes.append(li);
    };
    list('waited for by', links.waiters);
    list('held by', links.holders);
  };

  const fillMembers = (details: HTMLDetailsElement): void => {
    const box = details.querySelector<HTMLElement>('.members');
    if (!box || box.childElementCount > 0) return;
    const index = Number(box.dataset['g']);
    const keys = members[index] ?? [];
    const fragment = document.createDocumentFragment();
    for (const key of keys) fragment.append(button(key, /^\d+$/.test(key) ? `thread ${key}` : title(key)), ' ');
    box.append(fragment);
  };

  const openGroup = (index: number): void => {
    const details = groupElements[index];
    if (!details) return;
    details.hidden = false;
    details.open = true;
    fillMembers(details);
    details.scrollIntoView({ block: 'nearest' });
  };

  interface GraphNode {
    id: string;
    element: SVGGElement;
  }
  let nodes: GraphNode[] | null = null;
  function graphNodes(): GraphNode[] {
    nodes ??= Array.from(document.querySelectorAll<SVGGElement>('#graph-svg g.node')).map((element) => ({
      id: element.querySelector('title')?.textContent ?? '',
      element,
    }));
    return nodes;
  }

  const activateNode = (id: string): void => {
    if (id.startsWith('thread:')) showThread(id.slice('thread:'.length));
    else if (id.startsWith('group:')) {
      const first = id.slice('group:'.length).split(',')[0] ?? '';
      showThread(first);
      const row = rows.get(first);
      if (row) openGroup(row[1]);
    } else showResource(id);
  };

  for (const node of graphNodes()) {
    node.element.setAttribute('tabindex', '0');
    node.element.setAttribute('role', 'button');
    node.element.setAttribute('aria-label', node.id);
  }

  document.addEventListener('click', (event) => {
    const target = event.target as Element | null;
    if (!target) return;
    const thread = target.closest<HTMLElement>('button.t');
    if (thread?.dataset['t'] !== undefined) {
      showThread(thread.dataset['t']);
      return;
    }
    const group = target.closest<HTMLElement>('button.link');
    if (group?.dataset['g'] !== undefined) {
      openGroup(Number(group.dataset['g']));
      return;
    }
    const node = target.closest('#graph-svg g.node');
    if (node) activateNode(node.querySelector('title')?.textContent ?? '');
  });
  document.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' && event.key !== ' ') return;
    const node = (event.target as Element | null)?.closest?.('#graph-svg g.node');
    if (!node) return;
    event.preventDefault();
    activateNode(node.querySelector('title')?.textContent ?? '');
  });
  for (const details of groupElements) details.addEventListener('toggle', () => details.open && fillMembers(details));

  // Search: each group's function names, lower-cased, read once on first use.
  const search = document.getElementById('q') as HTMLInputElement | null;
  const count = document.getElementById('q-count');
  let names: string[] | null = null;
  let pending = 0;
  const filter = (): void => {
    pending = 0;
    const query = (search?.value ?? '').trim().toLowerCase();
    names ??= groupElements.map((g) => Array.from(g.querySelectorAll('pre.st b'), (b) => (b.textContent ?? '').toLowerCase()).join('\n'));
    let shownGroups = 0;
    let shownThreads = 0;
    groupElements.forEach((details, index) => {
      const keys = members[index] ?? [];
      const match = query === '' || names![index]!.includes(query) || (/^\d+$/.test(query) && keys.includes(query));
      details.hidden = !match;
      if (match) {
        shownGroups++;
        shownThreads += keys.length;
      }
    });
    const marking = query !== '' && shownGroups <= 200;
    groupElements.forEach((details) => {
      if (details.hidden) return;
      for (const b of Array.from(details.querySelectorAll('pre.st b'))) b.classList.toggle('m', marking && (b.textContent ?? '').toLowerCase().includes(query));
      if (query !== '' && shownGroups <= 10) {
        details.open = true;
        fillMembers(details);
      }
    });
    if (count) count.textContent = query === '' ? '' : `${shownThreads} ${shownThreads === 1 ? 'thread' : 'threads'} in ${shownGroups} ${shownGroups === 1 ? 'group' : 'groups'}`;
  };
  search?.addEventListener('input', () => {
    if (pending === 0) pending = requestAnimationFrame(filter);
  });

  if (data.first !== null) showThread(data.first);
})();
