import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contentSecurityPolicy, originOf } from './page-response';
import { escapeHtml, html, raw } from '../common/html/html';

describe('page templates', () => {
  it('escapes every interpolated value unless it is already safe markup', () => {
    const name = `<script>alert("x")</script>&'\``;
    assert.equal(
      html`<p title="${name}">${name}</p>`.text,
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;&#96;">' +
        '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;&#96;</p>',
    );
    assert.equal(html`<div>${html`<b>${'<i>'}</b>`}</div>`.text, '<div><b>&lt;i&gt;</b></div>');
    assert.equal(html`${raw('<br>')}`.text, '<br>');
    assert.equal(html`${['<a>', html`<b></b>`]}${null}${undefined}${false}${0}`.text, '&lt;a&gt;<b></b>0');
    assert.equal(escapeHtml('plain'), 'plain');
  });

  it('builds a strict CSP that admits only http(s) origins as extra sources', () => {
    assert.equal(
      contentSecurityPolicy(['https://shop.example', "https://evil.example; script-src 'unsafe-inline'"], []),
      "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self' https://shop.example; " +
        "base-uri 'none'; frame-ancestors 'none'",
    );
    assert.equal(originOf('https://shop.example:8443/return?x=1'), 'https://shop.example:8443');
    // A page that runs scripts (contract §20, MPGS): its nonce and the provider's origin, nothing else.
    const nonce = 'bm9uY2Utb2YtdGhpcy1wYWdl';
    assert.match(
      contentSecurityPolicy([], [], {
        nonce,
        origins: ['https://bank.gateway.example', '*', "'unsafe-inline'"],
      }),
      new RegExp(
        `^default-src 'none'; script-src 'nonce-${nonce}' https://bank\\.gateway\\.example; style-src`,
      ),
    );
    assert.doesNotMatch(
      contentSecurityPolicy([], [], {
        nonce: "x' 'unsafe-inline",
        origins: ['https://bank.gateway.example'],
      }),
      /script-src/,
      'a nonce that is not one adds no script source at all',
    );
    assert.equal(originOf('javascript:alert(1)'), null);
    assert.equal(originOf('not a url'), null);
    assert.equal(originOf(''), null);
  });
});
