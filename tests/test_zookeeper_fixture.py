"""The ZooKeeper fixture gives a real, isolated server namespace."""

from kazoo.client import KazooClient


def test_chroot_is_empty_and_writable(zk_connect):
    client = KazooClient(hosts=zk_connect)
    client.start(timeout=15)
    try:
        assert client.get_children("/") == []
        client.create("/brokers/ids/0", b"{}", makepath=True, ephemeral=True)
        assert client.get_children("/brokers/ids") == ["0"]
    finally:
        client.stop()
        client.close()
