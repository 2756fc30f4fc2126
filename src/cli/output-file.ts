/**
 * Files a command writes besides its report (`--gdb-commands FILE`, `--save-dump FILE`): checked
 * before the work starts, so a path that cannot be written costs no gdb run, and written with one
 * line on failure (an InputError: exit 2, never a stack trace).
 */
import { accessSync, constants, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { InputError } from '../errors.js';

/** Throws an InputError when `path` (relative to `cwd`) cannot be written as a file. */
export function checkWritable(path: string, cwd: string, what: string): string {
  const full = resolve(cwd, path);
  if (/[\u0000]/.test(path)) throw new InputError(`cannot write ${what} ${path}: the path holds a NUL character`);
  let isDir = false;
  try {
    isDir = statSync(full).isDirectory();
  } catch {
    // Does not exist yet: its folder must.
    try {
      accessSync(dirname(full), constants.W_OK);
      if (!statSync(dirname(full)).isDirectory()) throw new Error('ENOTDIR');
    } catch (error) {
      throw new InputError(`cannot write ${what} ${path}: ${reason(error, 'its folder does not exist or is not writable')}`);
    }
    return full;
  }
  if (isDir) throw new InputError(`cannot write ${what} ${path}: it is a directory`);
  try {
    accessSync(full, constants.W_OK);
  } catch (error) {
    throw new InputError(`cannot write ${what} ${path}: ${reason(error, 'not writable')}`);
  }
  return full;
}

/** Writes `text` to `path`; any failure is one InputError line. */
export function writeOutputFile(path: string, text: string, cwd: string, what: string): void {
  const full = checkWritable(path, cwd, what);
  try {
    writeFileSync(full, text);
  } catch (error) {
    throw new InputError(`cannot write ${what} ${path}: ${reason(error, 'write failed')}`);
  }
}

function reason(error: unknown, fallback: string): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOENT':
      return 'its folder does not exist';
    case 'ENOTDIR':
      return 'a part of the path is not a folder';
    case 'EROFS':
      return 'read-only file system';
    case 'ENOSPC':
      return 'no space left on the device';
    case 'EISDIR':
      return 'it is a directory';
    default:
      return code ?? fallback;
  }
}
