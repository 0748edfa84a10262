import { describe, expect, it } from 'vitest';
import { omitArrayMembers } from '../src/informers/omit-json-members.js';

const parseOmitted = (o: unknown, names: string[]) => JSON.parse(omitArrayMembers(JSON.stringify(o), names)) as unknown;

describe('omitArrayMembers', () => {
  it('drops the named array members wherever they sit in their object, nested values and all', () => {
    const node = {
      type: 'MODIFIED',
      object: {
        metadata: {
          name: 'n',
          managedFields: [{ manager: 'm', fieldsV1: { 'f:status': { 'f:images': {}, 'k:{"type":"Ready"}': {} } } }],
          labels: { a: 'b' },
        },
        status: { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }], images: [{ names: ['x', 'y'] }] },
      },
    };
    expect(parseOmitted(node, ['managedFields', 'images'])).toEqual({
      type: 'MODIFIED',
      object: {
        metadata: { name: 'n', labels: { a: 'b' } },
        status: { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }] },
      },
    });
    expect(parseOmitted({ images: [1] }, ['images'])).toEqual({});
    expect(parseOmitted({ images: [1], a: 1 }, ['images'])).toEqual({ a: 1 });
    expect(parseOmitted({ a: 1, images: [[], {}] }, ['images'])).toEqual({ a: 1 });
    for (const names of [
      ['managedFields', 'images'],
      ['images', 'managedFields'],
    ]) {
      expect(parseOmitted({ managedFields: [1], images: [2] }, names)).toEqual({});
      expect(parseOmitted({ managedFields: [1], images: [2], a: 1 }, names)).toEqual({ a: 1 });
      expect(parseOmitted({ a: 1, managedFields: [1], images: [2] }, names)).toEqual({ a: 1 });
    }
  });

  it('skips strings with brackets, quotes and backslashes inside the dropped value', () => {
    const tricky = ['a]b}', 'q"uote', 'back\\', 'back\\"q]', '\\\\', '{[', '"images":['];
    expect(parseOmitted({ a: 1, images: [{ names: tricky }], z: tricky }, ['images'])).toEqual({ a: 1, z: tricky });
  });

  it('leaves a member whose name occurs only inside a string, or an escaped copy of it (a JSON annotation)', () => {
    const obj = {
      metadata: { annotations: { last: JSON.stringify({ images: [1], managedFields: [2] }), n: '"images":[' } },
    };
    const text = JSON.stringify(obj);
    expect(omitArrayMembers(text, ['images', 'managedFields'])).toBe(text);
  });

  it('returns the text itself for a missing name, a value that is not an array, formatted JSON or a cut-off value', () => {
    for (const text of [
      JSON.stringify({ a: 1 }),
      JSON.stringify({ images: 'x' }),
      JSON.stringify({ a: 1, images: [1] }, null, 1),
      '{"a":1,"images":[1,2',
      '{"a":1,"images":["unterminated]}',
    ])
      expect(omitArrayMembers(text, ['images'])).toBe(text);
  });
});
