// The in-flight limit: by the protocol that reaches the tile server, unless set explicitly.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HTTP1_IN_FLIGHT, MULTIPLEXED_IN_FLIGHT, inFlightLimit, isMultiplexed, tileProtocol } from '../../../Public/js/in-flight.js';
import { parseOptions } from '../../../Public/js/options.js';

test('HTTP/2 and HTTP/3 get the larger limit, anything else (HTTP/1.1, unknown, hidden) six', () => {
  assert.equal(HTTP1_IN_FLIGHT, 6);
  assert.equal(MULTIPLEXED_IN_FLIGHT, 64);
  assert.equal(inFlightLimit(undefined, 'h2'), 64);
  assert.equal(inFlightLimit(null, 'h3'), 64);
  assert.equal(inFlightLimit(null, 'h3-29'), 64);
  for (const protocol of ['http/1.1', 'http/1.0', '', undefined, null, 'h2c', 'H2', 'spdy/3']) {
    assert.equal(inFlightLimit(null, protocol), 6, String(protocol));
  }
  assert.equal(isMultiplexed('h2'), true);
  assert.equal(isMultiplexed('http/1.1'), false);
});

test('an explicit limit always wins, over any protocol', () => {
  for (const protocol of ['h2', 'h3', 'http/1.1', '']) {
    assert.equal(inFlightLimit(3, protocol), 3);
    assert.equal(inFlightLimit(64, protocol), 64);
    assert.equal(inFlightLimit(1, protocol), 1);
  }
  // What the page passes on: `?inflight=N` explicit, none → null → by protocol.
  assert.equal(parseOptions('').options.maxInFlight, null);
  assert.equal(inFlightLimit(parseOptions('').options.maxInFlight, 'h2'), 64);
  assert.equal(inFlightLimit(parseOptions('?inflight=6').options.maxInFlight, 'h2'), 6);
  assert.equal(inFlightLimit(parseOptions('?inflight=0').options.maxInFlight, 'h2'), 64, 'out of range: ignored');
});

test('the tile server on the page origin: the navigation says, else a resource entry of that origin', () => {
  const page = 'https://images.test:8443';
  assert.equal(tileProtocol(page, page, { nextHopProtocol: 'h2' }, []), 'h2');
  assert.equal(tileProtocol(page, page, { nextHopProtocol: 'http/1.1' }, [{ name: `${page}/a.dzi`, nextHopProtocol: 'h2' }]), 'http/1.1');
  assert.equal(tileProtocol(page, page, undefined, [{ name: `${page}/a.dzi`, nextHopProtocol: 'h2' }]), 'h2');
  assert.equal(tileProtocol(page, page, undefined, []), '');
});

test('another origin: only that origin\'s resource entries count, the newest first; hidden (no Timing-Allow-Origin) is unknown', () => {
  const page = 'https://viewer.example.org';
  const tiles = 'https://tiles.example.org';
  const nav = { nextHopProtocol: 'h2' };
  assert.equal(tileProtocol(tiles, page, nav, []), '', 'the page\'s own protocol says nothing about the tile server');
  assert.equal(tileProtocol(tiles, page, nav, [{ name: `${page}/app.js`, nextHopProtocol: 'h2' }]), '');
  assert.equal(tileProtocol(tiles, page, nav, [{ name: `${tiles}/a.dzi`, nextHopProtocol: '' }]), '');
  assert.equal(inFlightLimit(null, tileProtocol(tiles, page, nav, [{ name: `${tiles}/a.dzi`, nextHopProtocol: '' }])), 6);
  const entries = [{ name: `${tiles}/a.dzi`, nextHopProtocol: 'http/1.1' }, { name: `${tiles}/a_files/0/0_0.jpg`, nextHopProtocol: 'h3' },
    { name: `${page}/x.js`, nextHopProtocol: 'http/1.1' }, { name: 'not a url', nextHopProtocol: 'h2' }];
  assert.equal(tileProtocol(tiles, page, nav, entries), 'h3');
  assert.equal(tileProtocol('https://tiles.example.org:444', page, nav, entries), '', 'another port is another origin');
});
