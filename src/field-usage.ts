import {
  type ASTNode,
  type DocumentNode,
  type GraphQLSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  Kind,
  TypeInfo,
  visit,
  visitWithTypeInfo,
} from 'graphql';

/**
 * What clients use of the schema, named by schema coordinates (the GraphQL spec's syntax:
 * `Type.field`, `Type.field(arg:)`, `Enum.VALUE`, `Input.field`, `@directive`,
 * `@directive(arg:)`). One module, importing nothing of ours, so that the counter the gateway
 * keeps, the usage file `npm run schema:usage` makes of its scrapes and the registered operations
 * `npm run schema:breaking` checks all name a use the same way.
 */

/**
 * The counter of field usage: operations that selected or passed each coordinate, by calling app.
 * `coordinate` is bounded by the schema and `client` by the client-name rule of the other metrics.
 */
export const FIELD_USAGE_METRIC = {
  name: 'gateway_graphql_field_requests_total',
  help: 'GraphQL operations that used each schema coordinate (a field selected, an argument, enum value or input field passed), by client.',
  labelNames: ['coordinate', 'client'],
} as const;

export const fieldCoordinate = (type: string, field: string): string => `${type}.${field}`;
export const argumentCoordinate = (type: string, field: string, argument: string): string => `${type}.${field}(${argument}:)`;
export const directiveCoordinate = (directive: string, argument?: string): string =>
  argument === undefined ? `@${directive}` : `@${directive}(${argument}:)`;

const NAME = '[_A-Za-z][_0-9A-Za-z]*';
/** A schema coordinate as the spec writes it. */
export const SCHEMA_COORDINATE = new RegExp(`^(?:${NAME}(?:\\.${NAME}(?:\\(${NAME}:\\))?)?|@${NAME}(?:\\(${NAME}:\\))?)$`);

/** The nodes whose coordinate is a use of the schema: a selected field, a passed argument, enum value or input field, a directive. */
const USES = new Set<string>([Kind.FIELD, Kind.ARGUMENT, Kind.ENUM, Kind.OBJECT_FIELD, Kind.DIRECTIVE]);

/**
 * The coordinates an operation's document uses, sorted: every field it selects (not the
 * introspection fields), every argument, enum value and input field it writes, every directive.
 * What its variables hold is not in the document: an enum value or input field sent in a
 * variable is seen only at run time.
 */
export function operationCoordinates(schema: GraphQLSchema, document: DocumentNode): string[] {
  const used = new Set<string>();
  for (const [node, coordinate] of coordinatesByNode(schema, document)) if (USES.has(node.kind)) used.add(coordinate);
  return [...used].sort();
}

/**
 * The schema coordinate each node of the document stands at, for the nodes that have one in
 * `schema`: a field, argument, input field, enum value, directive or type name its own; a
 * variable or another value the argument or input field it is written in. What the schema does
 * not know is left out, so that a document that does not validate still maps what it can.
 */
export function coordinatesByNode(schema: GraphQLSchema, document: DocumentNode): Map<ASTNode, string> {
  const found = new Map<ASTNode, string>();
  const typeInfo = new TypeInfo(schema);
  // The argument or input field each value is written in, innermost last.
  const enclosing: (string | undefined)[] = [];
  const fragmentTypes = new Map(
    document.definitions.flatMap((definition) =>
      definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition.typeCondition.name.value] as const] : [],
    ),
  );
  const note = (node: ASTNode, coordinate: string | undefined) => {
    if (coordinate !== undefined) found.set(node, coordinate);
  };
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const parent = typeInfo.getParentType();
        if (node.name.value.startsWith('__') || !parent || !typeInfo.getFieldDef()) return;
        note(node, fieldCoordinate(parent.name, node.name.value));
      },
      Argument: {
        enter(node) {
          const coordinate = argumentCoordinateOf(typeInfo, node.name.value);
          note(node, coordinate);
          enclosing.push(coordinate);
        },
        leave() {
          enclosing.pop();
        },
      },
      ObjectField: {
        enter(node) {
          const coordinate = inputFieldCoordinateOf(typeInfo, node.name.value);
          note(node, coordinate);
          enclosing.push(coordinate);
        },
        leave() {
          enclosing.pop();
        },
      },
      EnumValue(node) {
        const type = getNamedType(typeInfo.getInputType());
        if (isEnumType(type) && type.getValue(node.value)) note(node, fieldCoordinate(type.name, node.value));
        else note(node, enclosing.at(-1));
      },
      // A value is at the argument or input field it is written in (an error about it names that).
      Variable: (node) => note(node, enclosing.at(-1)),
      IntValue: (node) => note(node, enclosing.at(-1)),
      FloatValue: (node) => note(node, enclosing.at(-1)),
      StringValue: (node) => note(node, enclosing.at(-1)),
      BooleanValue: (node) => note(node, enclosing.at(-1)),
      NullValue: (node) => note(node, enclosing.at(-1)),
      ListValue: (node) => note(node, enclosing.at(-1)),
      ObjectValue: (node) => note(node, enclosing.at(-1)),
      Directive(node) {
        if (schema.getDirective(node.name.value)) note(node, directiveCoordinate(node.name.value));
      },
      NamedType(node) {
        if (schema.getType(node.name.value)) note(node, node.name.value);
      },
      InlineFragment(node) {
        if (node.typeCondition && schema.getType(node.typeCondition.name.value)) note(node, node.typeCondition.name.value);
      },
      FragmentSpread(node) {
        const type = fragmentTypes.get(node.name.value);
        if (type !== undefined && schema.getType(type)) note(node, type);
      },
    }),
  );
  return found;
}

/** The coordinate of the argument `name` where `typeInfo` stands: a directive's or a field's, if the schema has it. */
function argumentCoordinateOf(typeInfo: TypeInfo, name: string): string | undefined {
  const directive = typeInfo.getDirective();
  const field = typeInfo.getFieldDef();
  const parent = typeInfo.getParentType();
  if (!typeInfo.getArgument()) return undefined;
  if (directive) return directiveCoordinate(directive.name, name);
  return field && parent ? argumentCoordinate(parent.name, field.name, name) : undefined;
}

/** The coordinate of the input field `name` where `typeInfo` stands, if its input type has it. */
function inputFieldCoordinateOf(typeInfo: TypeInfo, name: string): string | undefined {
  const parent = typeInfo.getParentInputType();
  const input = parent && getNamedType(parent);
  return isInputObjectType(input) && input.getFields()[name] ? fieldCoordinate(input.name, name) : undefined;
}
