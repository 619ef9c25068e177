/** The pages' one stylesheet: small, no framework, logical properties so RTL needs nothing extra. */
export const STYLESHEET = `:root {
  color-scheme: light;
  --ink: #1c2430; --muted: #5b6573; --line: #d7dce3; --accent: #0b5cad; --accent-ink: #fff;
  --warn-bg: #fff4e5; --warn-ink: #7a4100; --info-bg: #eef5fc; --final-bg: #eef7ef;
  font-family: system-ui, -apple-system, "Segoe UI", Tahoma, "Noto Sans Arabic", sans-serif;
  line-height: 1.5; color: var(--ink); background: #f3f5f8;
}
body { margin: 0; padding: 2rem 1rem; }
.panel { max-width: 28rem; margin-inline: auto; background: #fff; border: 1px solid var(--line);
  border-radius: 12px; padding: 1.5rem; }
.merchant { margin: 0; color: var(--muted); font-weight: 600; }
h1 { margin: 0.25rem 0 1rem; font-size: 1.5rem; }
h2 { font-size: 1.05rem; margin: 1.25rem 0 0.5rem; }
.summary { margin: 0; display: grid; gap: 0.35rem; }
.summary div { display: flex; justify-content: space-between; align-items: baseline; gap: 1rem; }
.summary dt { color: var(--muted); }
.summary dd { margin: 0; font-weight: 600; unicode-bidi: plaintext; }
.summary .amount { font-size: 1.25rem; }
.methods { list-style: none; padding: 0; margin: 0; display: grid; gap: 0.5rem; }
.method { display: flex; align-items: center; gap: 0.75rem; padding: 0.75rem 1rem; border: 1px solid var(--line);
  border-radius: 8px; color: var(--ink); text-decoration: none; font-weight: 600; }
.method:hover { border-color: var(--accent); }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible { outline: 3px solid #f0a400; outline-offset: 2px; }
label { display: block; font-weight: 600; margin-block-start: 1rem; }
input[type=text] { box-sizing: border-box; width: 100%; font: inherit; font-size: 1.1rem; padding: 0.6rem 0.75rem;
  border: 1px solid #8a94a3; border-radius: 6px; letter-spacing: 0.05em; }
input[aria-invalid=true] { border-color: #b3261e; }
.hint { margin: 0.25rem 0 0; color: var(--muted); font-size: 0.9rem; }
.error { margin: 0.25rem 0 0; color: #b3261e; font-weight: 600; }
fieldset.card-choice { border: 1px solid #c5ccd6; border-radius: 6px; margin: 1rem 0 0; padding: 0.5rem 1rem 1rem; }
fieldset.card-choice legend label.choice { margin: 0; font-weight: 700; }
/* A choice's own fields show only while it is chosen (no script needed; without :has all show). */
fieldset.card-choice:not(:has(input[name=saved_card]:checked)) .choice-fields { display: none; }
legend { font-weight: 700; padding: 0 0.25rem; }
label.choice { display: flex; gap: 0.5rem; align-items: center; font-weight: 400; margin-block-start: 0.75rem; }
label.choice input { width: 1.2rem; height: 1.2rem; margin: 0; }
button { font: inherit; cursor: pointer; border-radius: 6px; padding: 0.65rem 1.25rem; }
.primary { margin-block-start: 1rem; width: 100%; border: 0; background: var(--accent); color: var(--accent-ink);
  font-weight: 700; font-size: 1.05rem; }
.secondary { margin-block-start: 1rem; background: #fff; color: var(--ink); border: 1px solid #8a94a3; }
.notice { padding: 0.75rem 1rem; border-radius: 8px; margin: 1rem 0 0; }
.notice-warning { background: var(--warn-bg); color: var(--warn-ink); }
.notice-info { background: var(--info-bg); }
.notice-final { background: var(--final-bg); }
.sandbox { font-size: 0.9rem; color: var(--warn-ink); background: var(--warn-bg); padding: 0.5rem 0.75rem;
  border-radius: 6px; }
.method-name { margin: 0 0 0.5rem; font-weight: 600; }
`;

/** The default gateway icon (`/b/checkout/static/icons/{pg}.svg`): a card, whatever the pg. */
export const CARD_ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" width="32" height="32" role="img" aria-label="card">
<rect x="2" y="7" width="28" height="18" rx="3" fill="#0b5cad"/>
<rect x="2" y="11" width="28" height="4" fill="#1c2430"/>
<rect x="6" y="19" width="8" height="2" rx="1" fill="#fff"/>
</svg>
`;
