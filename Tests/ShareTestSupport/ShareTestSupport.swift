// ShareTestSupport
