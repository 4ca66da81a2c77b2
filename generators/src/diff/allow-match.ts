/**
 * How an allow entry names the change it accepts (D461, "Allow entries name an enum value by its list and value,
 * never its position"). A change is named by its kind and the pointer of its definition (D104 one diff entry per change, at its definition); a value added to or
 * removed from an enum is named by the list's pointer and the value itself, because the value's own pointer
 * (`.../enum/3`) is its position, and inserting a value in sorted order before it moves it: the entry would then match
 * nothing (stale) while the moved value fails the gate. One definition, read by the gate and the docs changelog.
 */
import { deepEqual } from './document.js';
import type { Change } from './types.js';

/** What an allow entry names: kind and pointer, plus the value when the pointer is a list of values. */
export interface AllowKey {
  kind: string;
  pointer: string;
  /** Present (possibly `null`) when the entry names a value of the list at `pointer`. */
  value?: unknown;
}

/** The value a change adds to or removes from its list. */
export function changedValue(change: Pick<Change, 'before' | 'after'>): unknown {
  return 'after' in change ? change.after : change.before;
}

/** The key an allow entry for `change` should be written with (what the gate suggests). */
export function allowKeyOf(change: Change): AllowKey {
  return change.list === undefined
    ? { kind: change.kind, pointer: change.pointer }
    : { kind: change.kind, pointer: change.list, value: changedValue(change) };
}

const hasValue = (key: AllowKey) => Object.hasOwn(key, 'value');

/** Whether `entry` accepts `change`: by list and value for a value of a list, else by kind and pointer. */
export function allowMatches(entry: AllowKey, change: Change): boolean {
  if (entry.kind !== change.kind) return false;
  if (hasValue(entry)) return change.list !== undefined && entry.pointer === change.list && deepEqual(entry.value, changedValue(change));
  return entry.pointer === change.pointer;
}

/**
 * Whether `entry` names a value of a list by its position (the format before D461): `kind` is a value's change and
 * `pointer` ends in a position, with no `value`. Still read (it matches the change at that position), with a warning.
 */
export function isPositionalEntry(entry: AllowKey): boolean {
  return !hasValue(entry) && /^enum-value-(added|removed)$/.test(entry.kind) && /\/\d+$/.test(entry.pointer);
}
