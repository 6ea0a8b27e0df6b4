/**
 * @generated SignedSource<<dd4ffefce64aa130c04c573ffa660f2d>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
import { FragmentRefs } from "relay-runtime";
export type ApiKeysStreamQuery$variables = Record<PropertyKey, never>;
export type ApiKeysStreamQuery$data = {
  readonly " $fragmentSpreads": FragmentRefs<"ApiKeysStream_query">;
};
export type ApiKeysStreamQuery = {
  response: ApiKeysStreamQuery$data;
  variables: ApiKeysStreamQuery$variables;
};

const node: ConcreteRequest = (function(){
var v0 = [
  {
    "kind": "Literal",
    "name": "first",
    "value": 100
  }
];
return {
  "fragment": {
    "argumentDefinitions": [],
    "kind": "Fragment",
    "metadata": null,
    "name": "ApiKeysStreamQuery",
    "selections": [
      {
        "args": null,
        "kind": "FragmentSpread",
        "name": "ApiKeysStream_query"
      }
    ],
    "type": "Query",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": [],
    "kind": "Operation",
    "name": "ApiKeysStreamQuery",
    "selections": [
      {
        "alias": null,
        "args": (v0/*:: as any*/),
        "concreteType": "ApiKeyConnection",
        "kind": "LinkedField",
        "name": "apiKeys",
        "plural": false,
        "selections": [
          {
            "if": null,
            "kind": "Stream",
            "label": "ApiKeysStream_query$stream$ApiKeysStream_apiKeys",
            "selections": [
              {
                "alias": null,
                "args": null,
                "concreteType": "ApiKeyEdge",
                "kind": "LinkedField",
                "name": "edges",
                "plural": true,
                "selections": [
                  {
                    "alias": null,
                    "args": null,
                    "concreteType": "ApiKey",
                    "kind": "LinkedField",
                    "name": "node",
                    "plural": false,
                    "selections": [
                      {
                        "alias": null,
                        "args": null,
                        "kind": "ScalarField",
                        "name": "id",
                        "storageKey": null
                      },
                      {
                        "alias": null,
                        "args": null,
                        "kind": "ScalarField",
                        "name": "name",
                        "storageKey": null
                      },
                      {
                        "alias": null,
                        "args": null,
                        "kind": "ScalarField",
                        "name": "__typename",
                        "storageKey": null
                      }
                    ],
                    "storageKey": null
                  },
                  {
                    "alias": null,
                    "args": null,
                    "kind": "ScalarField",
                    "name": "cursor",
                    "storageKey": null
                  }
                ],
                "storageKey": null
              }
            ]
          },
          {
            "if": null,
            "kind": "Defer",
            "label": "ApiKeysStream_query$defer$ApiKeysStream_apiKeys$pageInfo",
            "selections": [
              {
                "alias": null,
                "args": null,
                "concreteType": "PageInfo",
                "kind": "LinkedField",
                "name": "pageInfo",
                "plural": false,
                "selections": [
                  {
                    "alias": null,
                    "args": null,
                    "kind": "ScalarField",
                    "name": "endCursor",
                    "storageKey": null
                  },
                  {
                    "alias": null,
                    "args": null,
                    "kind": "ScalarField",
                    "name": "hasNextPage",
                    "storageKey": null
                  }
                ],
                "storageKey": null
              }
            ]
          }
        ],
        "storageKey": "apiKeys(first:100)"
      },
      {
        "alias": null,
        "args": (v0/*:: as any*/),
        "filters": null,
        "handle": "connection",
        "key": "ApiKeysStream_apiKeys",
        "kind": "LinkedHandle",
        "name": "apiKeys"
      }
    ]
  },
  "params": {
    "cacheID": "7738ad94bb4930940b152b4d3b1d0a1c",
    "id": null,
    "metadata": {},
    "name": "ApiKeysStreamQuery",
    "operationKind": "query",
    "text": "query ApiKeysStreamQuery {\n  ...ApiKeysStream_query\n}\n\nfragment ApiKeysStream_query on Query {\n  apiKeys(first: 100) {\n    edges @stream(label: \"ApiKeysStream_query$stream$ApiKeysStream_apiKeys\", initialCount: 25) {\n      node {\n        id\n        name\n        __typename\n      }\n      cursor\n    }\n    ... @defer(label: \"ApiKeysStream_query$defer$ApiKeysStream_apiKeys$pageInfo\") {\n      pageInfo {\n        endCursor\n        hasNextPage\n      }\n    }\n  }\n}\n"
  }
};
})();

(node as any).hash = "cb12368f2ab6cc423e00637af5d727c7";

export default node;
