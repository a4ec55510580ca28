"""The operations of each resource, one module per resource; :class:`~tui.api.client.ApiClient` carries them."""
