// Lint rules for the TypeScript sources; formatting is Prettier's job, so its conflicting rules are off.
import js from '@eslint/js'
import prettier from 'eslint-config-prettier'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default tseslint.config(
    { ignores: ['dist/', 'node_modules/', 'bench/out/', 'bench/out-*/'] },
    js.configs.recommended,
    ...tseslint.configs.recommended,
    { files: ['scripts/**/*.js', 'bench/**/*.js'], languageOptions: { globals: globals.node } },
    { files: ['web/static/**/*.js'], languageOptions: { globals: globals.browser } },
    {
        rules: {
            // Walking a chain of layers starts from this one.
            '@typescript-eslint/no-this-alias': ['error', { allowedNames: ['layer', 'flat'] }],
            // A test's pattern for a format with two spaces reads best with the two spaces.
            'no-regex-spaces': 'off',
            '@typescript-eslint/no-unused-vars': [
                'error',
                { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
            ],
            '@typescript-eslint/consistent-type-imports': [
                'error',
                { fixStyle: 'inline-type-imports' },
            ],
            // A signal handler set before the value it closes exists reads it later.
            'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
            eqeqeq: ['error', 'smart'],
            'no-restricted-syntax': [
                'error',
                {
                    selector: 'TSAsExpression > Identifier[name="ctx"]',
                    message: 'Type the Koa context through the router, not with a cast.',
                },
            ],
        },
    },
    prettier,
)
