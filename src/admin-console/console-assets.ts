import type { GatewayDriver } from '../gateways/gateway-drivers';
import { driverFieldsetCss } from './gateway-settings-form';

/**
 * The console's one stylesheet: calm, no framework, logical properties so RTL needs nothing extra.
 * It ends with the rules that show the gateway form's fieldset of the picked driver, one per driver.
 */
export const consoleStylesheet = (drivers: readonly GatewayDriver[]): string => `:root {
  color-scheme: light;
  --ink: #1c2430; --muted: #5b6573; --line: #d7dce3; --accent: #0b5cad; --accent-ink: #fff;
  --ok-bg: #eef7ef; --ok-ink: #1e5b27; --err-bg: #fdeceb; --err-ink: #b3261e;
  font-family: system-ui, -apple-system, "Segoe UI", Tahoma, "Noto Sans Arabic", sans-serif;
  line-height: 1.5; color: var(--ink); background: #f3f5f8;
}
body { margin: 0; }
.bar { display: flex; flex-wrap: wrap; align-items: center; gap: 1rem 1.5rem; padding: 0.75rem 1.5rem;
  background: #fff; border-block-end: 1px solid var(--line); }
.bar nav { display: flex; gap: 1rem; flex: 1; }
.bar a { color: var(--accent); text-decoration: none; font-weight: 600; }
.bar a:hover { text-decoration: underline; }
.who { color: var(--muted); margin-inline-end: 0.5rem; }
main { max-width: 72rem; margin: 0 auto; padding: 1.5rem; }
h1 { margin: 0 0 1rem; font-size: 1.5rem; }
h2 { font-size: 1.1rem; margin: 1.5rem 0 0.5rem; }
h3 { font-size: 1rem; margin: 0 0 0.5rem; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 1rem 1.25rem; margin-block-end: 1rem; }
.narrow { max-width: 24rem; }
.filters { display: grid; grid-template-columns: repeat(auto-fit, minmax(12rem, 1fr)); gap: 0 1rem; align-items: end; }
.field { margin-block-end: 0.75rem; }
label { display: block; font-weight: 600; margin-block-end: 0.25rem; }
label.choice { display: flex; gap: 0.5rem; align-items: center; }
input[type=text], input[type=password], input[type=url], input[type=email], select {
  box-sizing: border-box; width: 100%; font: inherit; padding: 0.5rem 0.65rem; border: 1px solid #8a94a3; border-radius: 6px; background: #fff; }
input[aria-invalid=true] { border-color: var(--err-ink); }
input[type=checkbox] { width: 1.15rem; height: 1.15rem; margin: 0; }
.hint { margin: 0.25rem 0 0; color: var(--muted); font-size: 0.9rem; }
.error { margin: 0.25rem 0 0; color: var(--err-ink); font-weight: 600; }
button { font: inherit; cursor: pointer; border-radius: 6px; padding: 0.5rem 1.1rem; }
.primary { border: 0; background: var(--accent); color: var(--accent-ink); font-weight: 700; }
.secondary { background: #fff; color: var(--ink); border: 1px solid #8a94a3; }
.link { background: none; border: 0; padding: 0; color: var(--accent); font-weight: 600; text-decoration: underline; }
form.inline { display: inline; }
.notice { padding: 0.75rem 1rem; border-radius: 8px; margin: 0 0 1rem; }
.notice-ok { background: var(--ok-bg); color: var(--ok-ink); }
.notice-error { background: var(--err-bg); color: var(--err-ink); }
.issued code { font-size: 1.05rem; word-break: break-all; background: #f3f5f8; padding: 0.25rem 0.5rem; border-radius: 4px; }
table { width: 100%; border-collapse: collapse; background: #fff; margin-block-end: 0.75rem; }
th, td { text-align: start; padding: 0.45rem 0.6rem; border-block-end: 1px solid var(--line); vertical-align: top; }
th { font-size: 0.85rem; color: var(--muted); font-weight: 600; }
td.num { font-variant-numeric: tabular-nums; unicode-bidi: plaintext; }
.tag { font-size: 0.8rem; background: var(--err-bg); color: var(--err-ink); border-radius: 4px; padding: 0 0.35rem; }
.muted { color: var(--muted); font-weight: 400; }
.fields { display: grid; grid-template-columns: repeat(auto-fit, minmax(20rem, 1fr)); gap: 0.25rem 1.5rem; margin: 0; }
.fields div { display: flex; gap: 1rem; justify-content: space-between; border-block-end: 1px dotted var(--line); }
.fields dt { color: var(--muted); }
.fields dd { margin: 0; unicode-bidi: plaintext; word-break: break-all; }
.history { padding-inline-start: 1.25rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible { outline: 3px solid #f0a400; outline-offset: 2px; }
${driverFieldsetCss(drivers)}
`;
