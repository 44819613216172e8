import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.cluster/', 'deploy/'] },
  eslint.configs.recommended,
  ...tseslint.configs.strict,
  {
    // The RESTful server's pages' own script runs in the browser (src/restful/restful_pages.js).
    files: ['src/restful/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: { window: 'readonly', document: 'readonly', fetch: 'readonly', TextDecoder: 'readonly' },
    },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
);
