import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { expect } from 'chai';
import { keepsStringInput } from '../../apps/http/route.js';
import { everyRoute } from '../support/route-table.js';
import { runNode } from '../support/cli-process.js';

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

describe('Route bodies: co-body on first use', () => {
  it('loads co-body (and iconv-lite) with the first JSON or form body, not with the API and content routes', async () => {
    // A process of its own: this one has loaded co-body already. It imports both apps' modules (every
    // route), then asks for the parsers as the first JSON body would, and says when co-body was loaded.
    const module = (relative: string) => JSON.stringify(import.meta.resolve(relative));
    const script = `
      import { createRequire } from 'node:module';
      const loaded = (name) => Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('/node_modules/' + name + '/'));
      await import(${module('../../apps/api/api-app.js')});
      await import(${module('../../apps/content/content-app.js')});
      const before = { coBody: loaded('co-body'), iconv: loaded('iconv-lite') };
      const { coBodyParsers } = await import(${module('../../apps/http/upload-pacing.js')});
      const parsers = await coBodyParsers();
      const parsed = await parsers.json(Object.assign((await import('node:stream')).Readable.from([Buffer.from('{"a":1}')]), { headers: { 'content-type': 'application/json', 'content-length': '7' } }));
      console.log(JSON.stringify({ before, after: { coBody: loaded('co-body'), iconv: loaded('iconv-lite') }, parsed }));`;
    const result = await runNode(['--input-type=module', '-e', script]);
    expect(result.code, result.stderr).to.equal(0);
    expect(JSON.parse(result.stdout)).to.deep.equal({ before: { coBody: false, iconv: false }, after: { coBody: true, iconv: true }, parsed: { a: 1 } });
  });
});
