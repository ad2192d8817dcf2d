import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { expect } from 'chai';
import { keepsStringInput } from '../../apps/http/route.js';
import { everyRoute } from '../support/route-table.js';

/** Every query, path and header schema of the API's and the content server's routes, named. */
function inputSchemas(): Array<[string, TSchema]> {
  const schemas: Array<[string, TSchema]> = [];
  for (const route of everyRoute()) {
    for (const part of ['query', 'params', 'headers'] as const) {
      const schema = route[part];
      if (schema) schemas.push([`${route.method} ${route.path} ${part}`, schema]);
    }
  }
  return schemas;
}

describe('Route validation: conversion of string input', () => {
  const schemas = inputSchemas();

  it('skips conversion only where Value.Convert would return every string or list-of-strings input unchanged', () => {
    let skipped = 0;
    for (const [name, schema] of schemas) {
      if (!keepsStringInput(schema)) continue;
      skipped++;
      const keys = Object.keys((schema.properties ?? {}) as Record<string, unknown>);
      for (const values of [
        ['5', 'true', '-1.5e3', '', 'x y'],
        [['a', 'b'], ['7'], []],
      ] as const) {
        const input: Record<string, unknown> = Object.fromEntries(keys.map((key, i) => [key, structuredClone(values[i % values.length])]));
        input.unknown_extra = 'kept';
        expect(Value.Convert(schema, structuredClone(input)), name).to.deep.equal(input);
      }
    }
    // The content server's view address is the case this serves: its path, query and headers are all text.
    const view = new Map(schemas.filter(([name]) => name.startsWith('GET /m/:id ')).map(([name, schema]) => [name, keepsStringInput(schema)]));
    expect([...view]).to.deep.equal([
      ['GET /m/:id query', true],
      ['GET /m/:id params', true],
      ['GET /m/:id headers', true],
    ]);
    expect(skipped).to.be.greaterThan(3);
  });

  it('converts where a property is a number, a boolean or a list alone', () => {
    const converted = schemas.filter(([, schema]) => !keepsStringInput(schema)).map(([name]) => name);
    expect(converted).to.include('GET /files query');
    for (const [name, schema] of schemas.filter(([n]) => converted.includes(n))) {
      const properties = Object.values((schema.properties ?? {}) as Record<string, TSchema>);
      const changes = properties.some((p) => p.type !== 'string');
      expect(changes, name).to.equal(true);
    }
  });
});
