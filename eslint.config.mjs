// Type-aware ESLint (typescript-eslint) with Prettier owning the formatting.
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readLayers, rootModules } from './scripts/layers.mjs';

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** How many folders below src/<folder>/ its .ts files sit: 0 for src/<folder>/x.ts. */
function depthsOf(folder) {
  const depths = new Set();
  const walk = (dir, depth) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name), depth + 1);
      else if (entry.name.endsWith('.ts')) depths.add(depth);
    }
  };
  walk(join(import.meta.dirname, 'src', folder), 0);
  return [...depths];
}

/**
 * docs/architecture.md "Layers", enforced: a folder of src/ imports only folders of lower layers.
 * For each folder and each depth of its files, one `@typescript-eslint/no-restricted-imports`
 * pattern refuses the relative paths that climb to src/ and go into a folder of the same layer or
 * above, or to a module directly in src/ (`import type` too). The core `no-restricted-imports`
 * stays free for the UnitOfWork rule below.
 */
function layerRules() {
  const layers = readLayers();
  const roots = rootModules().map(escape);
  return layers.flatMap((folders, index) =>
    folders.flatMap((folder) => {
      const above = layers
        .slice(index)
        .flat()
        .filter((other) => other !== folder)
        .map(escape);
      const targets = [above.length ? `(?:${above.join('|')})(?:/|$)` : null, `(?:${roots.join('|')})$`]
        .filter(Boolean)
        .join('|');
      return depthsOf(folder).map((depth) => ({
        files: [`src/${folder}/${'*/'.repeat(depth)}*.ts`],
        rules: {
          '@typescript-eslint/no-restricted-imports': [
            'error',
            {
              patterns: [
                {
                  regex: `^(?:\\./)?(?:\\.\\./){${depth + 1}}(?:${targets})`,
                  message: `${folder}/ is in layer ${index + 1}: it imports only folders of lower layers (docs/architecture.md, "Layers").`,
                },
              ],
            },
          ],
        },
      }));
    }),
  );
}

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', 'scripts/*.mjs', 'eslint.config.mjs'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  prettier,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-extraneous-class': 'off',
      '@typescript-eslint/no-namespace': 'off',
    },
  },
  {
    // contract §17: the UnitOfWork (src/database/) is the only way to open a DB transaction.
    files: ['src/**/*.ts'],
    ignores: ['src/database/**', 'src/common/http/body-routes.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@nestjs/common',
              importNames: ['Post', 'Put', 'Patch', 'Delete'],
              message:
                'Use the route decorators of src/common/http/body-routes.ts: they read the request body (after the guards).',
            },
            {
              name: '@nestjs/typeorm',
              importNames: ['InjectDataSource'],
              message:
                'Use UnitOfWork (src/database/unit-of-work.ts) for transactions, repositories for the rest.',
            },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='transaction']",
          message: 'Open DB transactions only with UnitOfWork.run (src/database/unit-of-work.ts).',
        },
      ],
    },
  },
  ...layerRules(),
  {
    files: ['test/**/*.ts', 'src/**/*.spec.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', name: ['describe', 'it', 'test'], package: 'node:test' },
          ],
        },
      ],
    },
  },
);
