import tseslint from 'typescript-eslint';
const WORDS = String.raw`/^(?!\$\([\w~-]+\)$)[\s\S]*[A-Za-z]{2}[\s\S]*\s[\s\S]*[A-Za-z]/`;
const TEXT = `:matches(Literal[value=${WORDS}], TemplateLiteral:has(TemplateElement[value.raw=${WORDS}]))`;
export default tseslint.config({
  files: ['**/*.ts'],
  languageOptions: { parser: tseslint.parser },
  rules: {
    'no-restricted-syntax': ['error', { selector: `${TEXT}:not(ImportDeclaration > Literal):not(CallExpression[callee.property.name='t'] > *):not(TemplateLiteral *):not(CallExpression[callee.property.name=/^(info|warn|error|debug|trace|log|startsWith|endsWith|includes|test|match)$/] *):not(Property[key.name='command'] > *)`, message: 'l10n-text' }],
  },
});
