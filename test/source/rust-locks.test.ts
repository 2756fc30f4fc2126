/**
 * The source reader on small Rust files written here (src/source/rust-locks.ts, the rust pack's
 * source-locks.yaml): a guard from `m.lock()` bound by `let` is held to the end of its block; one
 * bound to `_`, never bound, dropped with `drop(g)`, taken in a branch or a closure the line is
 * not in, or handed to a Condvar wait on the line is not. Real tree-sitter-rust (the npm wasm build).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SourceAnswer } from '../../src/model/source.js';
import { sourceFolder } from '../helpers/source-reader.js';

/** Asks as a frame of `app::f` calling std's Mutex::lock. */
const { ask } = sourceFolder('waitgraph-rust-source-', { function: 'app::f', callee: 'std::sync::poison::mutex::Mutex<u32>::lock<u32>' });

const held = (a: SourceAnswer): string[] => a.holds.map((h) => `${h.lock.text}@${h.line}`);

test('Rust ABBA: a guard bound by let two lines up is held at the line that waits', () => {
  const a = ask('abba.rs', ['static A: Mutex<u32> = Mutex::new(0);', 'fn f(b: &Barrier) {', '    let _a = A.lock().unwrap();', '    b.wait();', '    let _b = B.lock().unwrap(); // WAIT', '}'], 'WAIT', { function: 'app::f::h0123456789abcdef' });
  assert.equal(a.status, 'read', a.notes.join(' '));
  assert.deepEqual(held(a), ['A@3']);
  assert.equal(a.holds[0]?.code, 'let _a = A.lock().unwrap();');
  assert.equal(a.holds[0]?.via, 'lock');
  assert.equal(a.holds[0]?.lock.kind, 'rust-mutex');
  assert.equal(a.holds[0]?.lock.global, 'A', 'a static of the module');
  assert.deepEqual(a.waits.map((w) => `${w.text} ${w.kind}`), ['B rust-mutex']);
  assert.equal(a.code, 'let _b = B.lock().unwrap();');
});

test('a guard bound to _, or never bound, lets go at the end of its statement; `_name` keeps it', () => {
  const a = ask('temp.rs', ['fn f() {', '    let _ = A.lock();', '    *C.lock().unwrap() += 1;', '    let _kept = D.lock().expect("poisoned");', '    let _b = B.lock().unwrap(); // WAIT', '}'], 'WAIT');
  assert.deepEqual(held(a), ['D@4']);
});

test('a temporary guard in a match, if let or while let scrutinee lives through the arms or the block it guards', () => {
  const m = ask('match.rs', ['fn f(k: u32) {', '    let n = M.lock().unwrap().len();', '    match M.lock().unwrap().get(&k) {', '        Some(v) => v.run(),', '        None => {', '            let _g = M.lock().unwrap(); // WAIT', '        }', '    }', '}'], 'WAIT');
  assert.deepEqual(held(m), ['M@3'], 'the scrutinee\'s guard, not the one of `let n` (dropped at its `;`)');
  assert.equal(m.holds[0]?.code, 'match M.lock().unwrap().get(&k) {');
  assert.deepEqual(m.waits.map((w) => w.text), ['M'], 'it waits for the lock it holds');
  const i = ask('iflet.rs', ['fn f() {', '    if let Some(job) = Q.lock().unwrap().pop_front() {', '        let _s = S.lock().unwrap(); // WAIT', '    }', '}'], 'WAIT');
  assert.deepEqual(held(i), ['Q@2']);
  const e = ask('ifelse.rs', ['fn f() {', '    if let Some(job) = Q.lock().unwrap().pop_front() {', '        job.run();', '    } else {', '        let _s = S.lock().unwrap(); // WAIT', '    }', '}'], 'WAIT');
  assert.deepEqual(held(e), [], 'the else block: edition 2024 drops it first');
  const w = ask('whilelet.rs', ['fn f() {', '    while let Some(job) = Q.lock().unwrap().pop_front() {', '        let _s = S.lock().unwrap(); // WAIT', '    }', '    let _t = T.lock().unwrap();', '}'], 'WAIT');
  assert.deepEqual(held(w), ['Q@2']);
  const after = ask('after.rs', ['fn f() {', '    match Q.lock().unwrap().len() { 0 => {}, _ => {} }', '    let _s = S.lock().unwrap(); // WAIT', '}'], 'WAIT');
  assert.deepEqual(held(after), [], 'after the match');
});

test('drop(g) before the line ends the guard; a shadowed guard stays held', () => {
  const a = ask('drop.rs', ['fn f() {', '    let g = A.lock().unwrap();', '    drop(g);', '    let g = C.lock().unwrap();', '    let g = D.lock().unwrap();', '    let _b = B.lock().unwrap(); // WAIT', '}'], 'WAIT');
  assert.deepEqual(held(a), ['C@4', 'D@5'], 'shadowing drops nothing');
  const b = ask('drop2.rs', ['fn f() {', '    let g = A.lock().unwrap();', '    std::mem::drop(g);', '    let _b = B.lock().unwrap(); // WAIT', '}'], 'WAIT');
  assert.deepEqual(held(b), []);
});

test('a guard whose block ended, or taken in a branch, loop or closure the line is not in, is not claimed', () => {
  const a = ask('scope.rs', ['fn f(x: bool) {', '    {', '        let _a = A.lock().unwrap();', '    }', '    if x {', '        let _c = C.lock().unwrap();', '    }', '    for _ in 0..2 { let _d = D.lock().unwrap(); }', '    let h = || { let _e = E.lock().unwrap(); };', '    let _b = B.lock().unwrap(); // WAIT', '}'], 'WAIT');
  assert.deepEqual(held(a), []);
  const b = ask('branch.rs', ['fn f(x: bool) {', '    if x {', '        let _c = C.lock().unwrap();', '        let _b = B.lock().unwrap(); // WAIT', '    }', '}'], 'WAIT');
  assert.deepEqual(held(b), ['C@3'], 'the branch the line is in');
});

test('fields of self and parameters are members the dump can link; read/write are rwlock guards; ? keeps the guard', () => {
  const a = ask('member.rs', ['impl Shard {', '    fn run(&self, other: &RwLock<u8>) -> Result<(), E> {', '        let _s = self.state.write()?;', '        let _o = other.read().unwrap();', '        let _b = self.inner.b.lock().unwrap(); // WAIT', '        Ok(())', '    }', '}'], 'WAIT', { function: 'app::Shard::run' });
  assert.deepEqual(held(a), ['self.state@3', 'other@4']);
  assert.deepEqual(a.holds.map((h) => [h.lock.kind, h.lock.member?.root, h.lock.member?.path]), [['rust-rwlock', 'self', '.state'], ['rust-rwlock', 'other', '']]);
  assert.deepEqual(a.waits.map((w) => [w.text, w.member?.root, w.member?.path]), [['self.inner.b', 'self', '.inner.b']]);
  // A read with arguments is I/O, not a lock.
  const b = ask('io.rs', ['fn f(file: &mut File, buf: &mut [u8]) {', '    let n = file.read(buf).unwrap();', '    let _b = B.lock().unwrap(); // WAIT', '}'], 'WAIT');
  assert.deepEqual(held(b), []);
});

test('a Condvar wait on the line lets its guard\'s lock go (std: by value, parking_lot: &mut)', () => {
  const a = ask('cv.rs', ['fn f() {', '    let mut g = M.lock().unwrap();', '    let _h = H.lock().unwrap();', '    g = CV.wait(g).unwrap(); // WAIT', '}'], 'WAIT', { callee: 'std::sync::poison::condvar::Condvar::wait<bool>' });
  assert.deepEqual(held(a), ['H@3']);
  assert.deepEqual(a.released?.map((r) => r.text), ['M']);
  const b = ask('pl.rs', ['fn f() {', '    let mut g = M.lock();', '    CV.wait(&mut g); // WAIT', '}'], 'WAIT', { callee: 'parking_lot::condvar::Condvar::wait<u32>' });
  assert.deepEqual(held(b), []);
  assert.deepEqual(b.released?.map((r) => r.text), ['M']);
});

test('in a closure, a lock the function around it binds is no static; the closure\'s own guards count', () => {
  const a = ask('closure.rs', ['fn f() {', '    let m = Mutex::new(0);', '    let h = move || {', '        let _g = m.lock().unwrap();', '        let _b = B.lock().unwrap(); // WAIT', '    };', '}'], 'WAIT', { function: 'app::f::{closure#0}' });
  assert.deepEqual(held(a), ['m@4']);
  assert.equal(a.holds[0]?.lock.global, undefined, 'm is a captured local');
  assert.equal(a.waits[0]?.global, 'B');
});

test('a line that calls a closure or fn value (the frame below is FnOnce::call_once) still fits the dump', () => {
  const a = ask('fnvalue.rs', ['fn f(job: fn()) {', '    let _a = A.lock().unwrap();', '    job(); // WAIT', '}'], 'WAIT', { callee: 'core::ops::function::FnOnce::call_once<fn(), ()>' });
  assert.equal(a.status, 'read', a.notes.join(' '));
  assert.deepEqual(held(a), ['A@2']);
});

test('a frame whose line does not call the function below it marks the file as not matching the dump', () => {
  const a = ask('edited.rs', ['fn f() {', '    let _a = A.lock().unwrap();', '    println!("moved"); // WAIT', '    let _b = B.lock().unwrap();', '}'], 'WAIT');
  assert.equal(a.status, 'mismatch');
  assert.match(a.notes.join(' '), /edited\.rs does not match the dump/);
});
